/**
 * Config-driven stack program: one stack per environment (Pulumi.<env>.yaml holds the `karmada:*`
 * settings). Run with `pulumi up -s <env>` from the repository root.
 */
import * as pulumi from "@pulumi/pulumi";
import { parseStackConfig, validateStackSecrets } from "./config";
import { buildEstate } from "./estate";

const cfg = new pulumi.Config("karmada");
const present = <T>(key: string, value: T | undefined) => (value === undefined ? {} : { [key]: value });
const config = parseStackConfig({
  ...present("hostKubeconfig", cfg.getSecret("hostKubeconfig")),
  ...present("hostContext", cfg.get("hostContext")),
  ...present("etcd", cfg.getObject("etcd")),
  ...present("controlPlane", cfg.getObject("controlPlane")),
  ...present("crds", cfg.getObject("crds")),
  ...present("members", cfg.getObject("members")),
  ...present("memberKubeconfigs", cfg.getSecretObject<Record<string, string>>("memberKubeconfigs")),
  ...present("addons", cfg.getObject("addons")),
  ...present("sshPrivateKey", cfg.getSecret("sshPrivateKey")),
});
// secrets read in plain text only to be checked now; everything below gets them as secret Outputs
const plain = (key: string) => pulumi.runtime.getConfig(`karmada:${key}`);
validateStackSecrets(
  { sshPrivateKey: plain("sshPrivateKey"), memberKubeconfigs: plain("memberKubeconfigs") },
  config,
);
const estate = buildEstate(config);

export const apiEndpoint = estate.controlPlane.apiEndpoint;
export const adminKubeconfig = pulumi.secret(estate.controlPlane.adminKubeconfig);
export const caCertPem = estate.controlPlane.caCertPem;
export const certificateExpiry = estate.controlPlane.certificateExpiry;
export const etcdClientUrls = estate.etcd.clientUrls;
export const memberClusters = estate.members.map((m) => ({ name: m.clusterName, mode: m.mode }));
