/**
 * Certificates of the test bed, made with openssl — the one module that runs it ({@link openssl}): a CA
 * (generated, or one the caller brings so that certificates issued elsewhere are trusted), serving and
 * client leaves, the service-account key pair, and an etcd test cluster's CA, member and client
 * certificates ({@link makeTestPki}).
 */
import { execFileSync } from "child_process";
import { randomBytes } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { MemberPkiFile } from "../lib/etcd/hosts/pkiFiles";

/** A CA certificate and its private key (PEM). */
export interface CaPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Paths of the files {@link issueClusterPki} wrote. */
export interface ClusterPkiFiles {
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly saKey: string;
  readonly saPub: string;
}

/** What {@link issueClusterPki} issues. */
export interface ClusterPkiOptions {
  /** Cluster name, for the generated CA's common name. */
  readonly clusterName: string;
  /** Loopback address the API server listens on; goes into the serving certificate's SANs. */
  readonly address: string;
  /** First IP of the service range (the in-cluster `kubernetes` Service); a SAN only, never bound. */
  readonly serviceIp: string;
  /** CA to sign with. @default - a new CA named after the directory */
  readonly ca?: CaPair;
  /** Validity of issued leaves, in days. @default 30 */
  readonly days?: number;
}

/** Where and with what input {@link openssl} runs. */
export interface OpensslOptions {
  /** Working directory (relative file names in `args`). @default the process's */
  readonly cwd?: string;
  /** Text on its stdin (a PEM to inspect). @default none */
  readonly input?: string;
}

/**
 * Runs openssl — the one place tests, benches and scripts call it — and returns its stdout; a failure
 * throws with openssl's stderr in the message.
 */
export function openssl(args: readonly string[], options: OpensslOptions = {}): string {
  return execFileSync("openssl", [...args], {
    cwd: options.cwd,
    input: options.input,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Generates a self-signed RSA CA into `dir/<name>.crt|.key` and returns it. */
export function generateCa(dir: string, commonName: string, name = "ca"): CaPair {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "3650",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.crt`,
      "-subj",
      `/CN=${commonName}`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
    ],
    { cwd: dir },
  );
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
  return {
    certPem: fs.readFileSync(path.join(dir, `${name}.crt`), "utf8"),
    keyPem: fs.readFileSync(path.join(dir, `${name}.key`), "utf8"),
  };
}

/**
 * Issues `dir/<name>.crt|.key` signed by the CA in `dir/ca.crt|.key`, with the given subject (openssl
 * form, `/O=…/CN=…`) and x509v3 extension lines.
 */
export function issueLeaf(
  dir: string,
  name: string,
  subject: string,
  extensions: string[],
  days: number,
): void {
  openssl(
    [
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      subject,
    ],
    { cwd: dir },
  );
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
  fs.writeFileSync(path.join(dir, `${name}.ext`), `${extensions.join("\n")}\n`);
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
      // a random serial instead of a ca.srl file next to the CA
      "-set_serial",
      `0x${randomBytes(16).toString("hex")}`,
      "-days",
      String(days),
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.crt`,
    ],
    { cwd: dir },
  );
  fs.rmSync(path.join(dir, `${name}.csr`));
  fs.rmSync(path.join(dir, `${name}.ext`));
}

/** Leaf extensions of a client certificate. */
export const CLIENT_EXTENSIONS: readonly string[] = [
  "basicConstraints=critical,CA:FALSE",
  "keyUsage=critical,digitalSignature,keyEncipherment",
  "extendedKeyUsage=clientAuth",
];

/** Leaf extensions of a serving certificate for `sans` (`IP:…`, `DNS:…`). */
export function servingExtensions(sans: readonly string[]): string[] {
  return [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature,keyEncipherment",
    "extendedKeyUsage=serverAuth",
    `subjectAltName=${sans.join(",")}`,
  ];
}

/** The SANs of a cluster's API server: its address, the `kubernetes` Service's IP and names. */
export function apiServerSans(address: string, serviceIp: string): string[] {
  return [
    `IP:${address}`,
    `IP:${serviceIp}`,
    "DNS:localhost",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
  ];
}

/** Writes the service-account signing key pair `dir/sa.key` (0600) and `dir/sa.pub`. */
export function generateServiceAccountKey(dir: string): void {
  openssl(["genrsa", "-out", "sa.key", "2048"], { cwd: dir });
  fs.chmodSync(path.join(dir, "sa.key"), 0o600);
  openssl(["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"], { cwd: dir });
}

/**
 * Writes the cluster's PKI into `dir` (created if needed). Issuing again into the same directory replaces
 * the leaves and keeps nothing stale; the CA is rewritten from `options.ca` or generated anew.
 */
export function issueClusterPki(dir: string, options: ClusterPkiOptions): ClusterPkiFiles {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (options.ca) {
    fs.writeFileSync(path.join(dir, "ca.crt"), options.ca.certPem);
    fs.writeFileSync(path.join(dir, "ca.key"), options.ca.keyPem, { mode: 0o600 });
  } else {
    generateCa(dir, `loopback-${options.clusterName}-ca`);
  }
  const days = options.days ?? 30;
  issueLeaf(
    dir,
    "apiserver",
    "/CN=kube-apiserver",
    servingExtensions(apiServerSans(options.address, options.serviceIp)),
    days,
  );
  issueLeaf(dir, "admin", "/O=system:masters/CN=loopback-admin", [...CLIENT_EXTENSIONS], days);
  generateServiceAccountKey(dir);
  const file = (name: string) => path.join(dir, name);
  return {
    caCert: file("ca.crt"),
    caKey: file("ca.key"),
    servingCert: file("apiserver.crt"),
    servingKey: file("apiserver.key"),
    adminCert: file("admin.crt"),
    adminKey: file("admin.key"),
    saKey: file("sa.key"),
    saPub: file("sa.pub"),
  };
}

/**
 * Credentials of an external etcd for programs that build an EtcdCluster in `external` mode (unit tests,
 * the graph bench): a real CA and a client certificate it signed, made once per process (the component
 * checks that each parses and that the key is the certificate's).
 */
/** PEMs of an external etcd's CA and of a client certificate it accepts. */
export interface ExternalEtcdCredentials {
  readonly caCertPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

let made: ExternalEtcdCredentials | undefined;

/** The process's external-etcd credentials (made on first use). */
export function externalEtcdCredentials(): ExternalEtcdCredentials {
  if (made) return made;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-external-etcd-"));
  try {
    const ca = generateCa(dir, "external-etcd-ca");
    issueLeaf(dir, "client", "/CN=karmada-etcd-client", [...CLIENT_EXTENSIONS], 365);
    made = {
      caCertPem: ca.certPem,
      clientCertPem: fs.readFileSync(path.join(dir, "client.crt"), "utf8"),
      clientKeyPem: fs.readFileSync(path.join(dir, "client.key"), "utf8"),
    };
    return made;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Certificates for a test cluster, made with openssl: one CA, per member server + peer, a client. */
export interface TestPki {
  readonly dir: string;
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** Bundle contents per member name. */
  readonly members: Record<string, Record<MemberPkiFile, string>>;
}

/** A leaf of the test cluster's CA, valid 2 days, for `usage` (extended key usages) and `sans`. */
function issue(dir: string, name: string, subject: string, sans: string | undefined, usage: string): void {
  const extensions = [`extendedKeyUsage=${usage}`, "keyUsage=critical,digitalSignature,keyEncipherment"];
  if (sans) extensions.push(`subjectAltName=${sans}`);
  issueLeaf(dir, name, subject, extensions, 2);
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
