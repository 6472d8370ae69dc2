import { ResolvedArtifact } from "../../hosts/artifact";
import { shq } from "../../hosts/shell";
import { ControlPlaneComponent } from "../flags-ports";

/** Whose release a binary belongs to, which decides how it reports its version. */
export type BinaryFamily = "kubernetes" | "karmada";

/** One component's program on the hosts. */
export interface ComponentBinary {
  /** File name in the bin dir and in the artifact. */
  readonly file: string;
  /** Release it follows (`kubernetes` for kube-apiserver and kube-controller-manager), hence how it reports its version. */
  readonly family: BinaryFamily;
  /** Version the binary must report, e.g. `v1.18.2`. */
  readonly version: string;
  /** Where the binary is installed from (the component's `binaries`, else `hosts.binaries`). */
  readonly artifact: ResolvedArtifact;
}

/** Release versions as upstream tags them: `vMAJOR.MINOR.PATCH` with optional pre-release / build. */
export const VERSION_FORM = /^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** karmada-apiserver is the stock kube-apiserver; every other component is named after its binary. */
export function binaryFile(component: ControlPlaneComponent): string {
  return component === "karmada-apiserver" ? "kube-apiserver" : component;
}

/** kube-apiserver and kube-controller-manager follow the Kubernetes version, the rest Karmada's. */
export function binaryFamily(component: ControlPlaneComponent): BinaryFamily {
  return component === "karmada-apiserver" || component === "kube-controller-manager"
    ? "kubernetes"
    : "karmada";
}

/**
 * Bash that reads the version `bin` reports into `reported`: `kube-apiserver --version` prints
 * `Kubernetes v1.35.2`; Karmada binaries print `version.Info{GitVersion:"v1.18.2", …}` for `version`.
 */
export function reportedVersionCommand(family: BinaryFamily, bin: string): string {
  return family === "kubernetes"
    ? `reported=$(${shq(bin)} --version 2>/dev/null | sed -n 's/^Kubernetes //p' | head -n 1)`
    : `reported=$(${shq(bin)} version 2>/dev/null | sed -n 's/.*GitVersion:"\\([^"]*\\)".*/\\1/p' | head -n 1)`;
}
