import * as fs from "fs";
import * as path from "path";
import { MemberPkiFile } from "../../../lib/etcd/hosts/pkiFiles";
import { openssl } from "../../../devkit/pki";

/** Certificates for a test cluster, made with openssl: one CA, per member server + peer, a client. */
export interface TestPki {
  readonly dir: string;
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** Bundle contents per member name. */
  readonly members: Record<string, Record<MemberPkiFile, string>>;
}

function issue(dir: string, name: string, subject: string, sans: string | undefined, usage: string): void {
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`], { cwd: dir });
  openssl(["req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`], { cwd: dir });
  const ext = [`extendedKeyUsage=${usage}`, "keyUsage=critical,digitalSignature,keyEncipherment"];
  if (sans) ext.push(`subjectAltName=${sans}`);
  fs.writeFileSync(path.join(dir, `${name}.ext`), `${ext.join("\n")}\n`);
  openssl(
    [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.crt`,
    ],
    { cwd: dir },
  );
}

/** Issues a CA, per-member server/peer certificates (SANs: address, name, localhost) and a client. */
export function makeTestPki(dir: string, members: readonly { name: string; address: string }[]): TestPki {
  fs.mkdirSync(dir, { recursive: true });
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"], { cwd: dir });
  openssl(
    ["req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=etcd-test-ca", "-days", "2", "-out", "ca.crt"],
    { cwd: dir },
  );
  issue(dir, "client", "/CN=pulumi-karmada-etcd-client", undefined, "clientAuth");
  const read = (f: string) => fs.readFileSync(path.join(dir, f), "utf8");
  const result: Record<string, Record<MemberPkiFile, string>> = {};
  for (const m of members) {
    const sans = `IP:${m.address},DNS:${m.name},DNS:localhost`;
    issue(dir, `${m.name}-server`, `/CN=${m.name}`, sans, "serverAuth,clientAuth");
    issue(dir, `${m.name}-peer`, `/CN=${m.name}`, sans, "serverAuth,clientAuth");
    result[m.name] = {
      "ca.crt": read("ca.crt"),
      "server.crt": read(`${m.name}-server.crt`),
      "server.key": read(`${m.name}-server.key`),
      "peer.crt": read(`${m.name}-peer.crt`),
      "peer.key": read(`${m.name}-peer.key`),
      "client.crt": read("client.crt"),
      "client.key": read("client.key"),
    };
  }
  return {
    dir,
    caCert: read("ca.crt"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
    members: result,
  };
}
