import * as fs from "fs";
import * as path from "path";
import { EtcdClusterContext } from "../../../lib/etcd/hosts/context";
import { EtcdHostsPlan, planEtcdHosts } from "../../../lib/etcd/hosts/plan";
import { pkiBundle } from "../../../lib/etcd/hosts/pkiFiles";
import { EtcdHostsArgs, EtcdHostsSettings, resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/settings";
import { HostSpec } from "../../../lib/hosts/spec";
import { PlanDriver } from "./driver";
import { EtcdBinaries, findEtcd } from "./etcdBinaries";
import { EtcdTestClient } from "./etcdClient";
import { makeTestPki, TestPki } from "./pki";
import { startTestBed, TestBed, TestBedOptions } from "./testbed";

/** Where the fixture puts the etcd binaries inside every host root (an artifact `path` source). */
export const HOST_ETCD_DIR = "/opt/etcd-bin";

/** Loopback hosts with real sshd, real etcd binaries on each, certificates, and a plan driver. */
export interface EtcdHostsFixture {
  readonly bed: TestBed;
  readonly etcd: EtcdBinaries;
  readonly pki: TestPki;
  readonly driver: PlanDriver;
  /** Host specs for the named hosts (all when omitted), keyed with the test key, host keys pinned. */
  hostSpecs(names?: string[]): HostSpec[];
  /** Resolved settings for the named hosts: supervisor runner, binaries from HOST_ETCD_DIR. */
  settings(names: string[], extra?: Partial<EtcdHostsArgs>): EtcdHostsSettings;
  /** Settings + plan + apply through the driver. */
  deploy(
    names: string[],
    context: EtcdClusterContext,
    extra?: Partial<EtcdHostsArgs>,
  ): Promise<{ plan: EtcdHostsPlan; ran: string[]; deleted: string[] }>;
  /** A client with the test client certificate against the named members. */
  client(names: string[]): EtcdTestClient;
  stop(): Promise<void>;
}

/** Starts the fixture; prints which etcd runs. */
export async function startEtcdHostsFixture(options: TestBedOptions): Promise<EtcdHostsFixture> {
  const etcd = findEtcd();
  console.log(
    `etcd under test: ${etcd.version} from ${etcd.origin}${etcd.hasEtcdutl ? "" : " (no etcdutl: etcdctl snapshot is used)"}`,
  );
  const bed = await startTestBed(options);
  for (const host of bed.hosts) {
    const dir = path.join(host.root, HOST_ETCD_DIR);
    fs.mkdirSync(dir, { recursive: true });
    for (const bin of fs.readdirSync(etcd.dir))
      fs.copyFileSync(path.join(etcd.dir, bin), path.join(dir, bin));
    for (const bin of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, bin), 0o755);
  }
  const pki = makeTestPki(path.join(bed.dir, "pki"), bed.hosts);
  const driver = new PlanDriver((command) => pkiBundle(pki.members[command.host]));
  const clients: EtcdTestClient[] = [];
  const fixture: EtcdHostsFixture = {
    bed,
    etcd,
    pki,
    driver,
    hostSpecs(names) {
      return bed.hosts
        .filter((h) => !names || names.includes(h.name))
        .map((h) => ({
          name: h.name,
          address: h.address,
          port: h.port,
          privateKey: bed.clientKey,
          hostKey: h.hostKey,
          root: h.root,
        }));
    },
    settings(names, extra = {}) {
      const byName = new Map(fixture.hostSpecs().map((h) => [h.name, h]));
      return resolveEtcdHostsSettings("etcd", {
        hosts: names.map((n) => byName.get(n)!),
        version: etcd.version,
        artifact: { path: HOST_ETCD_DIR },
        serviceManager: "supervisor",
        ...extra,
      });
    },
    async deploy(names, context, extra) {
      const settings = fixture.settings(names, extra);
      const plan = planEtcdHosts(settings, context);
      const { ran, deleted } = await driver.apply(settings.members, plan);
      return { plan, ran, deleted };
    },
    client(names) {
      const endpoints = bed.hosts
        .filter((h) => names.includes(h.name))
        .map((h) => `https://${h.address}:2379`);
      const client = new EtcdTestClient(endpoints, {
        ca: pki.caCert,
        cert: pki.clientCert,
        key: pki.clientKey,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      clients.forEach((c) => c.close());
      await bed.stop();
    },
  };
  return fixture;
}
