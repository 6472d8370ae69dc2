import * as pulumi from "@pulumi/pulumi";
import { EtcdCluster } from "../../../components/etcdCluster";
import { find, isSecret, recordResources, settle } from "../../support/mocks";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";

describe("EtcdCluster in hosts mode", () => {
  it("issues member certificates for every host and drives one command chain per member", async () => {
    const records = recordResources();
    const key = pulumi.secret(TEST_SSH_KEY);
    const hosts = ["10.0.0.11", "10.0.0.12", "10.0.0.13"].map((address, i) => ({
      name: `etcd-${i + 1}`,
      address,
      privateKey: key,
    }));
    const etcd = new EtcdCluster("etcd", { mode: "hosts", hosts: { hosts } });
    await settle(etcd);
    expect(etcd.clientUrls).toEqual(hosts.map((h) => `https://${h.address}:2379`));
    const csr = find(records, "CertRequest", "etcd-etcd-server-csr").inputs;
    expect(csr.ipAddresses).toEqual(expect.arrayContaining(hosts.map((h) => h.address)));
    expect(find(records, "LocallySignedCert", "etcd-etcd-peer-cert").inputs.caCertPem).toContain(
      "etcd-etcd-ca",
    );
    for (const host of hosts) {
      expect(
        records.some((r) => r.type === "command:remote:Command" && r.name.startsWith(`etcd-${host.name}-`)),
      ).toBe(true);
    }
    expect(await isSecret(etcd.clientKeyPem)).toBe(true);
    for (const r of records.filter((r) => r.type === "command:remote:Command")) {
      expect(r.secretPaths).toContain("connection");
    }
  });

  it("exposes the on-demand snapshot command only while the backup job is enabled", async () => {
    recordResources();
    const hosts = [{ name: "etcd-1", address: "10.0.0.11", privateKey: pulumi.secret(TEST_SSH_KEY) }];
    const withBackup = new EtcdCluster("a", { mode: "hosts", hosts: { hosts } });
    const without = new EtcdCluster("b", { mode: "hosts", hosts: { hosts, backup: { enabled: false } } });
    await settle(withBackup);
    await settle(without);
    expect(withBackup.snapshotCommand).toEqual({
      host: "etcd-1",
      path: "/usr/local/lib/pulumi-karmada/etcd-backup",
    });
    expect(without.snapshotCommand).toBeUndefined();
  });

  it("requires the hosts settings in hosts mode", () => {
    recordResources();
    expect(() => new EtcdCluster("etcd", { mode: "hosts" })).toThrow(
      /invalid hosts: is required when mode is "hosts"/,
    );
  });
});
