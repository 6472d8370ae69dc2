/**
 * Secret-valued inputs get the same checks as plain ones (issue 33, item 4): an SSH key, a brought CA
 * and an external etcd's credentials given as secret Outputs are checked once known, inside the
 * deployment; every resource is built from the checked value, so a bad one fails naming the field and
 * no message shows the value. The real engine's `up` (nothing created from a bad key) is in
 * test/e2e/etcd-hosts-faults.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateExternalEtcd } from "../../../components/etcd/external";
import { resolveHost } from "../../../lib/hosts/spec";
import { checkedCaSource } from "../../../lib/pki/config-check";
import { checkedWhenKnown } from "../../../lib/validation/deferred";
import { ConfigError } from "../../../lib/validation/errors";
import { generateCa } from "../../../devkit/pki";
import { externalEtcdCredentials } from "../../../devkit/pki";
import { valueOf } from "../../support/mocks";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";

const GARBLED_KEY =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END OPENSSH PRIVATE KEY-----\n";

/** The promises an Output holds: a rejected one rejects them all, and each must be handled. */
interface OutputPromises {
  promise(): Promise<unknown>;
  readonly isKnown: Promise<boolean>;
  readonly isSecret: Promise<boolean>;
  allResources(): Promise<unknown>;
}

/** What a rejected Output was rejected with (undefined when it resolved). */
async function rejection(input: pulumi.Input<unknown>): Promise<Error | undefined> {
  const output = pulumi.output(input) as unknown as OutputPromises;
  const [value, ...rest] = await Promise.allSettled([
    output.promise(),
    output.isKnown,
    output.isSecret,
    output.allResources(),
  ]);
  void rest;
  return value.status === "rejected" ? (value.reason as Error) : undefined;
}

describe("checkedWhenKnown", () => {
  const mustBeShort = (v: string) => {
    if (v.length > 3) throw new ConfigError("f", "is too long");
  };

  test("a plain value is checked at once", () => {
    expect(() => checkedWhenKnown("long", mustBeShort)).toThrow("invalid f: is too long");
    expect(checkedWhenKnown("ok", mustBeShort)).toBe("ok");
  });

  test("a secret value is checked once known, stays secret, and rejects when bad", async () => {
    const good = checkedWhenKnown(pulumi.secret("ok"), mustBeShort) as pulumi.Output<string>;
    expect(await valueOf(good)).toBe("ok");
    expect(await pulumi.isSecret(good)).toBe(true);
    const bad = checkedWhenKnown(pulumi.secret("long"), mustBeShort);
    expect((await rejection(bad))?.message).toBe("invalid f: is too long");
  });
});

describe("the inputs components build from", () => {
  test("an SSH key given as a secret that is no key: the key every connection uses rejects, naming the field", async () => {
    const host = resolveHost(
      { name: "e2", address: "10.0.0.12", privateKey: pulumi.secret(GARBLED_KEY) },
      "hosts.hosts[1]",
    );
    const error = await rejection(host.privateKey);
    expect(error?.message).toMatch(/^invalid hosts\.hosts\[1\]\.privateKey: is truncated or garbled/);
    expect(error?.message).not.toContain("bm90IGEga2V5IGF0IGFsbA==");
    const good = resolveHost(
      { name: "e1", address: "10.0.0.11", privateKey: pulumi.secret(TEST_SSH_KEY) },
      "h",
    );
    expect(await rejection(good.privateKey)).toBeUndefined();
    expect(await pulumi.isSecret(pulumi.output(good.privateKey))).toBe(true);
    // a plain key is checked at once, as before
    expect(() => resolveHost({ name: "e3", address: "10.0.0.13", privateKey: GARBLED_KEY }, "h")).toThrow(
      /invalid h\.privateKey: is truncated or garbled/,
    );
  });

  test("a brought CA whose secret key is not its certificate's: the key leaves are signed with rejects", async () => {
    const dir = mkdtempSync(join(tmpdir(), "secret-inputs-"));
    const ca = generateCa(dir, "brought-ca");
    const other = generateCa(mkdtempSync(join(tmpdir(), "secret-inputs-")), "other-ca");
    const checked = checkedCaSource(
      "pki.ca",
      { certPem: ca.certPem, keyPem: pulumi.secret(other.keyPem) },
      {},
    );
    const error = await rejection(checked.keyPem!);
    expect(error?.message).toMatch(/^invalid pki\.ca\.keyPem: does not belong to the certificate/);
    expect(error?.message).not.toContain("PRIVATE KEY");
    const fine = checkedCaSource("pki.ca", { certPem: ca.certPem, keyPem: pulumi.secret(ca.keyPem) }, {});
    expect(await rejection(fine.keyPem!)).toBeUndefined();
    expect(await pulumi.isSecret(pulumi.output(fine.keyPem!))).toBe(true);
    // a secret certificate that is no CA is refused by the certificate's own check
    const leafLike = checkedCaSource("pki.ca", { certPem: pulumi.secret("no pem here") }, {});
    expect((await rejection(leafLike.certPem))?.message).toMatch(
      /^invalid pki\.ca\.certPem: holds no PEM certificate/,
    );
  });

  test("an external etcd whose secret client key is not its client certificate's: named, never shown", async () => {
    const creds = externalEtcdCredentials();
    const stranger = generateCa(mkdtempSync(join(tmpdir(), "secret-inputs-")), "stranger");
    const checked = validateExternalEtcd({
      endpoints: ["https://10.0.0.1:2379"],
      caCertPem: creds.caCertPem,
      clientCertPem: creds.clientCertPem,
      clientKeyPem: pulumi.secret(stranger.keyPem),
    });
    expect((await rejection(checked.clientKeyPem))?.message).toBe(
      "invalid external.clientKeyPem: does not belong to the client certificate (their public keys differ) (allowed: the private key of clientCertPem)",
    );
    const fine = validateExternalEtcd({
      ...creds,
      endpoints: ["https://10.0.0.1:2379"],
      clientKeyPem: pulumi.secret(creds.clientKeyPem),
    });
    expect(await rejection(fine.clientKeyPem)).toBeUndefined();
    // plain parts are checked at construction, every problem together
    expect(() =>
      validateExternalEtcd({
        ...creds,
        endpoints: ["https://10.0.0.1:2379"],
        caCertPem: "not a certificate",
        clientKeyPem: stranger.keyPem,
      }),
    ).toThrow(
      /invalid external\.caCertPem: holds no PEM certificate[\s\S]*invalid external\.clientKeyPem: does not belong/,
    );
  });
});
