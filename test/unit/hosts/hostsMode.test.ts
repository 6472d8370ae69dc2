import * as pulumi from "@pulumi/pulumi";
import { resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/resolve";
import { deployEtcdOnHosts, EtcdHostsPki, remoteCommandInputs } from "../../../components/etcd/hostsMode";
import { planEtcdHosts } from "../../../lib/etcd/hosts/plan";
import { hostConnection } from "../../../lib/hosts/connection";
import { settingsWith } from "../../../devkit/hosts/scriptFixtures";
import { find, recordResources, settle, valueOf } from "../../support/mocks";
import { hosts } from "../../../devkit/hosts/scriptFixtures";

class Parent extends pulumi.ComponentResource {
  constructor(name: string) {
    super("test:index:EtcdParent", name);
  }
}

function pkiFor(names: string[]): EtcdHostsPki {
  const pem = (what: string) => `-----BEGIN ${what}-----\n${what}\n-----END ${what}-----`;
  return {
    caCert: pem("CA"),
    members: Object.fromEntries(
      names.map((n) => [
        n,
        {
          serverCert: pem(`${n} SERVER`),
          serverKey: pulumi.secret(pem(`${n} SERVER KEY`)),
          peerCert: pem(`${n} PEER`),
          peerKey: pulumi.secret(pem(`${n} PEER KEY`)),
        },
      ]),
    ),
    client: { cert: pem("CLIENT"), key: pulumi.secret(pem("CLIENT KEY")) },
  };
}

describe("deployEtcdOnHosts", () => {
  it("registers each member's commands side by side with the others', secrets only via stdin", async () => {
    const records = recordResources();
    const parent = new Parent("etcd");
    const names = ["etcd-1", "etcd-2", "etcd-3"];
    const out = deployEtcdOnHosts(
      parent,
      "etcd",
      resolveEtcdHostsSettings("etcd", { hosts: hosts(3), serviceManager: "systemd" }),
      pkiFor(names),
    );
    await settle(parent, ...Object.values(out.commands));
    expect(out.clientEndpoints).toEqual([
      "https://10.0.0.1:2379",
      "https://10.0.0.2:2379",
      "https://10.0.0.3:2379",
    ]);
    expect(await valueOf(out.clusterToken)).toMatch(/^etcd-[a-z0-9]+$/);

    const pki = find(records, "command:remote:Command", "etcd-etcd-2-pki");
    expect(pki.secretPaths).toEqual(expect.arrayContaining(["stdin", "connection"]));
    expect(pki.inputs.stdin).toContain(
      "--- pulumi-karmada file: server.key ---\n-----BEGIN etcd-2 SERVER KEY-----",
    );
    expect(pki.additionalSecretOutputs).toEqual(expect.arrayContaining(["stdout", "stderr"]));
    // our fields plus the SDK's own dial defaults (@pulumi/command 1.x fills those in), nothing else
    expect(pki.inputs.connection).toEqual({
      host: "10.0.0.2",
      port: 22,
      user: "root",
      privateKey: expect.any(String),
      dialErrorLimit: 10,
      perDialTimeout: 15,
    });

    const member2 = find(records, "command:remote:Command", "etcd-etcd-2-member");
    const urn = (n: string) => find(records, "command:remote:Command", n).urn;
    expect(member2.dependencies).toEqual(
      expect.arrayContaining([urn("etcd-etcd-2-install"), urn("etcd-etcd-2-pki")]),
    );
    // members do not wait for each other (their scripts take turns where etcd needs it)
    expect(member2.dependencies).not.toContain(urn("etcd-etcd-1-member"));
    expect(records.some((r) => r.name.endsWith("-preflight"))).toBe(false);
    expect(member2.inputs.create).toMatch(/^bash -c '#!\/usr\/bin\/env bash/);
    expect(member2.inputs.update).toBe(member2.inputs.create);
    expect(member2.inputs.delete).toContain("stop etcd member");
    expect(member2.inputs.stdin).toBeUndefined();
    expect(member2.secretPaths).not.toContain("create");
    for (const r of records.filter((r) => r.type === "command:remote:Command")) {
      expect(r.inputs.create).not.toMatch(/PRIVATE KEY|SERVER KEY|CLIENT KEY/);
    }
    const cluster = find(records, "command:remote:Command", "etcd-cluster");
    expect(cluster.dependencies).toEqual(expect.arrayContaining(names.map((n) => urn(`etcd-${n}-member`))));

    // The bootstrap record keeps the first member list; the member scripts read it.
    const record = find(records, "random:index/randomString:RandomString", "etcd-cluster");
    expect(record.inputs.keepers).toEqual({ members: names.join(",") });
    expect(member2.inputs.create).toContain("is_bootstrap=yes");
  });

  it("gives a restore its own cluster record (new token, fresh member list)", async () => {
    const records = recordResources();
    const parent = new Parent("etcd");
    const names = ["etcd-1", "etcd-2", "etcd-3"];
    const out = deployEtcdOnHosts(
      parent,
      "etcd",
      resolveEtcdHostsSettings("etcd", { hosts: hosts(3), restoreFrom: { path: "/backups/s.db" } }),
      pkiFor(names),
    );
    await settle(parent, ...Object.values(out.commands));
    expect(records.filter((r) => r.type.endsWith("RandomString")).map((r) => r.name)).toEqual([
      expect.stringMatching(/^etcd-cluster-r[0-9a-f]{8}$/),
    ]);
  });

  it("logs nothing for commands that carry secrets (logging: none), and never exports previous output", () => {
    const settings = settingsWith();
    const plan = planEtcdHosts(settings, { token: "t", bootstrapMembers: ["etcd-1"] });
    const connection = hostConnection(settings.members[0]);
    const inputsOf = (id: string) =>
      remoteCommandInputs(
        plan.commands.find((c) => c.id === id)!,
        connection,
        "s",
        undefined,
        undefined,
      );
    expect(inputsOf("etcd-1-pki")).toMatchObject({
      logging: "none",
      addPreviousOutputInEnv: false,
      create: "s",
      update: "s",
    });
    expect(inputsOf("etcd-1-member").logging).toBe("stdoutAndStderr");
  });

  it("rejects missing certificates and bad hosts before registering anything", () => {
    const records = recordResources();
    const parent = new Parent("etcd");
    const before = records.length;
    expect(() =>
      deployEtcdOnHosts(
        parent,
        "etcd",
        resolveEtcdHostsSettings("etcd", { hosts: hosts(3) }),
        pkiFor(["etcd-1", "etcd-2"]),
      ),
    ).toThrow("invalid pki.members.etcd-3: no certificates for this host");
    const twice = [...hosts(3).slice(0, 2), hosts(1)[0]];
    expect(() =>
      deployEtcdOnHosts(
        parent,
        "etcd",
        resolveEtcdHostsSettings("etcd", { hosts: twice }),
        pkiFor(["etcd-1", "etcd-2"]),
      ),
    ).toThrow('host "etcd-1" is listed twice');
    expect(records.length).toBe(before);
  });
});
