import { createHash } from "crypto";
import * as pulumi from "@pulumi/pulumi";

/**
 * SHA-256 (hex) of PEM certificates, in the order given: what a pod-template annotation carries so
 * that renewed certificates roll the workload. Keys are never passed in: a certificate changes with
 * its key, so hashing the public half is enough and keeps the value safe to show in a preview.
 */
export function certificatesChecksum(pems: readonly string[]): string {
  const hash = createHash("sha256");
  for (const pem of pems) hash.update(pem.trim()).update("\n");
  return hash.digest("hex");
}

/**
 * {@link certificatesChecksum} of certificate Outputs. Unsecreted on purpose: a digest of public
 * certificates reveals nothing, and a secret annotation would hide the whole pod template in diffs.
 */
export function certificatesChecksumOutput(pems: readonly pulumi.Input<string>[]): pulumi.Output<string> {
  return pulumi.unsecret(pulumi.all([...pems]).apply(certificatesChecksum));
}
