/**
 * What the etcd-on-hosts e2e program (./index.ts) is built from: the test writes it as a 0600 JSON file
 * and names the file in {@link INPUT_ENV}; the program reads it on every run.
 */
import { EtcdHostsArgs } from "../../../lib/etcd/hosts/config";
import { HostSpec } from "../../../lib/hosts/spec";

/** Environment variable naming the input file. */
export const INPUT_ENV = "PK_ETCD_E2E_INPUT";

/** A host as JSON: its private key a plain string (the program makes it a Pulumi secret). */
export type HostInput = Omit<HostSpec, "privateKey" | "proxy"> & { readonly privateKey: string };

/** `EtcdCluster`'s hosts settings as JSON. */
export interface EtcdProgramInput {
  readonly etcd: Omit<EtcdHostsArgs, "hosts"> & { readonly hosts: readonly HostInput[] };
}
