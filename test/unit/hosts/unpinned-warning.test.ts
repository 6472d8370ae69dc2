/**
 * The unpinned-host warning: one per program run. Its own file, so that its own module registry (jest
 * gives each file one) starts with nothing warned about, as a program run does.
 */
import * as pulumi from "@pulumi/pulumi";
import { resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/resolve";
import { deployEtcdOnHosts, EtcdHostsPki } from "../../../components/etcd/hostsMode";
import { HostSpec } from "../../../lib/hosts/spec";
import { recordResources, settle } from "../../support/mocks";
import { SECRET_KEY, hosts } from "../../../devkit/hosts/scriptFixtures";

describe("hosts without a pinned host key", () => {
  const PINNED = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPinned";
  const pem = (what: string) => `-----BEGIN ${what}-----\n${what}\n-----END ${what}-----`;
  const pki = (names: string[]): EtcdHostsPki => ({
    caCert: pem("CA"),
    members: Object.fromEntries(
      names.map((n) => [
        n,
        {
          serverCert: pem("CERT"),
          serverKey: pulumi.secret(pem("PRIVATE KEY")),
          peerCert: pem("CERT"),
          peerKey: pulumi.secret(pem("PRIVATE KEY")),
        },
      ]),
    ),
    client: { cert: pem("CERT"), key: pulumi.secret(pem("PRIVATE KEY")) },
  });
  class Parent extends pulumi.ComponentResource {
    constructor(name: string) {
      super("test:index:Parent", name);
    }
  }
  /** An etcd cluster on `list` as a program builds it (under the recording mocks); its resources. */
  const build = (name: string, list: HostSpec[]): pulumi.Resource[] => {
    const parent = new Parent(name);
    const out = deployEtcdOnHosts(
      parent,
      name,
      resolveEtcdHostsSettings(name, { hosts: list }),
      pki(list.map((h) => h.name)),
    );
    return [parent, ...Object.values(out.commands)];
  };
  const deploy = (name: string, list: HostSpec[]) => settle(...build(name, list));
  let warn: jest.SpyInstance;

  beforeEach(async () => {
    // a warning scheduled by the test before would otherwise land in this one
    await new Promise((resolve) => setImmediate(resolve));
    warn = jest.spyOn(pulumi.log, "warn").mockResolvedValue(undefined);
  });
  afterEach(() => warn.mockRestore());

  it("are named in exactly one warning per program run, however many hosts, components and commands", async () => {
    recordResources({ preview: true });
    const [a, b, c, d, e] = hosts(5);
    // two components, as a program builds them: 5 + 1 hosts, about twenty commands
    const resources = [
      ...build("etcd", [
        a,
        { ...b, hostKey: PINNED },
        { ...c, hostKey: PINNED, proxy: { address: "bastion.example", privateKey: SECRET_KEY } },
        d,
        { ...e, hostKey: PINNED },
      ]),
      ...build("other", [{ ...a, name: "etcd-9", address: "10.0.0.9" }]),
    ];
    await settle(...resources);
    expect(warn.mock.calls).toEqual([
      [
        'hosts without a pinned hostKey (etcd-1, proxy bastion.example:22, etcd-4, etcd-9): their SSH identity is not verified; pin it with hostKey: "<type> <base64>" (ssh-keyscan -t ed25519 <address>)',
      ],
    ]);
    // a host connected only after an await gets a warning of its own, naming only it
    await deploy("late", [{ ...a, name: "etcd-7", address: "10.0.0.7" }]);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      expect.stringContaining("(etcd-1, proxy bastion.example:22, etcd-4, etcd-9)"),
      expect.stringMatching(/^hosts without a pinned hostKey \(etcd-7\): /),
    ]);
    for (const [message] of warn.mock.calls) {
      expect(message).not.toContain("never-in-a-script");
      expect(message).not.toMatch(/PRIVATE KEY|BEGIN/);
    }
  });

  it("counts each host once however many commands use it, and warns about nothing when all are pinned", async () => {
    recordResources({ preview: true });
    await deploy(
      "pinned",
      hosts(3).map((h) => ({ ...h, hostKey: PINNED })),
    );
    expect(warn).not.toHaveBeenCalled();
    // a host no other test of this program run connects to
    const fresh = { ...hosts(1)[0], name: "etcd-31", address: "10.0.0.31" };
    await deploy("one", [fresh]);
    await deploy("again", [fresh]);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(/^hosts without a pinned hostKey \(etcd-31\): /),
    ]);
  });
});
