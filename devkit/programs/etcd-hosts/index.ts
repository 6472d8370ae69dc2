/**
 * The etcd-on-hosts e2e program, run by the Pulumi CLI in its own Node.js language host exactly as a
 * user's `pulumi up` runs a project: the public `EtcdCluster` in hosts mode, built from the JSON file
 * named by PK_ETCD_E2E_INPUT (see ./input.ts), exporting what the suites check.
 */
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { EtcdCluster } from "../../../components/etcdCluster";
import { EtcdProgramInput, INPUT_ENV } from "./input";

const file = process.env[INPUT_ENV];
if (!file) throw new Error(`${INPUT_ENV} (the input file of the etcd e2e program) is not set`);
const input = JSON.parse(fs.readFileSync(file, "utf8")) as EtcdProgramInput;

const etcd = new EtcdCluster("etcd", {
  mode: "hosts",
  // SSH keys are secrets from the start, as `config.requireSecret` would give them
  hosts: {
    ...input.etcd,
    hosts: input.etcd.hosts.map((h) => ({ ...h, privateKey: pulumi.secret(h.privateKey) })),
  },
});

/** Client URLs of the members, in host order. */
export const clientUrls = etcd.clientUrls;
/** The etcd CA. */
export const caCertPem = etcd.caCertPem;
/** Client certificate Karmada's API servers would use. */
export const clientCertPem = etcd.clientCertPem;
/** Its key: a secret output. */
export const clientKeyPem = etcd.clientKeyPem;
/** Host and script path of an on-demand snapshot. */
export const snapshotCommand = etcd.snapshotCommand;
