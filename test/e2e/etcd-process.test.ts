import { ChildProcess, execFileSync, spawn } from "child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "fs";
import { get } from "http";
import { createServer } from "net";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { resolveEtcdInClusterSettings } from "../../lib/etcd/settings";
import {
  ETCD_CERT_SECRET_KEYS,
  ETCD_DATA_MOUNT,
  ETCD_PKI_DIR,
  ETCD_PORTS,
  POD_NAME_ENV,
  SNAPSHOT_SCRIPT,
  STORE_SCRIPT,
  etcdFlags,
  etcdMemberAddresses,
  etcdMemberDnsName,
  etcdMemberNames,
} from "../../lib/manifests/etcd";
import { e2eTier } from "../support/engine/tier";
import { requireBinary } from "../support/kube/binaries";
import { generateCa } from "../support/kube/pki";

/**
 * Runs a real three-member etcd cluster (the test bed's pinned build) with the flags the StatefulSet
 * gives its members, and the backup job's scripts against it. The container runtime is emulated:
 * `$(POD_NAME)` expanded as the kubelet does, the Secret and data mounts mapped to temp directories,
 * each member's ports moved to free local ports and the members' DNS names pointed at them (the host
 * network and resolver are shared).
 */
const tier = e2eTier("etcd members with the generated flags (test/e2e/etcd-process.test.ts)", {
  binaries: ["etcd", "etcdctl", "etcdutl"],
});

jest.setTimeout(60_000);

// created when the suite starts, not at import: a suite that cannot run leaves nothing behind
let work: string;
let pkiDir: string;
let backupDir: string;
const settings = resolveEtcdInClusterSettings({ namespace: "karmada-system", name: "etcd", replicas: 3 });
const members = etcdMemberNames(settings);
const processes: ChildProcess[] = [];
type Ports = { client: number; peer: number; metrics: number };
const ports: Ports[] = [];

const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: pkiDir, stdio: "pipe" });

/** CA plus server and peer pairs as the PKI code issues them: server+client usage, member names as SANs. */
function issueCertificates(): void {
  generateCa(pkiDir, "etcd-ca"); // ca.crt and ca.key, the names the etcd Secret uses
  const names = etcdMemberAddresses(settings).flatMap((m) => m.addresses);
  const ext = [
    "extendedKeyUsage=serverAuth,clientAuth",
    `subjectAltName=${[...names.map((n) => `DNS:${n}`), "DNS:localhost", "IP:127.0.0.1"].join(",")}`,
  ].join("\n");
  writeFileSync(join(pkiDir, "ext.cnf"), ext);
  for (const [cert, key] of [
    [ETCD_CERT_SECRET_KEYS.serverCert, ETCD_CERT_SECRET_KEYS.serverKey],
    [ETCD_CERT_SECRET_KEYS.peerCert, ETCD_CERT_SECRET_KEYS.peerKey],
  ]) {
    openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      `${cert}.csr`,
      "-subj",
      "/CN=etcd",
    );
    openssl(
      "x509",
      "-req",
      "-in",
      `${cert}.csr`,
      "-CA",
      ETCD_CERT_SECRET_KEYS.ca,
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      cert,
      "-days",
      "1",
      "-extfile",
      "ext.cnf",
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** A member's arguments as the kubelet would pass them, with mounts, ports and member names mapped. */
function emulatedArgs(index: number): string[] {
  const own = ports[index];
  return etcdFlags(settings).map((flag) => {
    let mapped = flag
      .replaceAll(`$(${POD_NAME_ENV})`, members[index])
      .replaceAll(ETCD_PKI_DIR, pkiDir)
      .replaceAll(ETCD_DATA_MOUNT, join(work, members[index]))
      .replaceAll(`0.0.0.0:${ETCD_PORTS.client}`, `127.0.0.1:${own.client}`)
      .replaceAll(`0.0.0.0:${ETCD_PORTS.peer}`, `127.0.0.1:${own.peer}`)
      .replaceAll(`0.0.0.0:${ETCD_PORTS.metrics}`, `127.0.0.1:${own.metrics}`);
    members.forEach((member, j) => {
      const host = etcdMemberDnsName(settings, member);
      mapped = mapped
        .replaceAll(`${host}:${ETCD_PORTS.client}`, `127.0.0.1:${ports[j].client}`)
        .replaceAll(`${host}:${ETCD_PORTS.peer}`, `127.0.0.1:${ports[j].peer}`);
    });
    return mapped;
  });
}

/** The `health` field of a member's `/health`, or undefined while it does not answer. */
function healthOf(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => {
        try {
          resolve((JSON.parse(body) as { health?: string }).health);
        } catch {
          resolve(undefined);
        }
      });
    });
    request.on("error", () => resolve(undefined));
  });
}

/** Waits until every member reports health; `/health` needs a leader, so peers must have met over TLS. */
async function waitHealthy(): Promise<void> {
  const deadline = Date.now() + 40_000;
  for (let i = 0; i < members.length; i++) {
    for (;;) {
      if (processes[i].exitCode !== null) {
        throw new Error(`${members[i]} exited: ${readFileSync(join(work, `${members[i]}.log`), "utf8")}`);
      }
      if (Date.now() > deadline) throw new Error(`${members[i]} did not become healthy`);
      if ((await healthOf(ports[i].metrics)) === "true") break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Environment of the backup job's containers (ETCDCTL_* as the CronJob sets them, mapped like the mounts). */
const jobEnv = () => ({
  PATH: `${dirname(requireBinary("etcdctl"))}:${process.env.PATH}`,
  BACKUP_DIR: backupDir,
  ETCDCTL_API: "3",
  ETCDCTL_ENDPOINTS: `https://127.0.0.1:${ports[0].client}`,
  ETCDCTL_CACERT: join(pkiDir, ETCD_CERT_SECRET_KEYS.ca),
  ETCDCTL_CERT: join(pkiDir, ETCD_CERT_SECRET_KEYS.serverCert),
  ETCDCTL_KEY: join(pkiDir, ETCD_CERT_SECRET_KEYS.serverKey),
  PREFIX: settings.name,
  RETAIN: "2",
});
const sh = (script: string) =>
  execFileSync("sh", ["-c", script], { env: jobEnv(), encoding: "utf8", stdio: "pipe" });
const etcdctl = (args: string[], env: Record<string, string> = jobEnv()) =>
  execFileSync(requireBinary("etcdctl"), args, { env, encoding: "utf8", stdio: "pipe" });

tier.describe("etcd members with the generated flags (real etcd)", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "etcd-process-"));
    pkiDir = join(work, "pki");
    backupDir = join(work, "backup");
    issueCertificates();
    mkdirSync(backupDir);
    while (ports.length < members.length)
      ports.push({ client: await freePort(), peer: await freePort(), metrics: await freePort() });
    members.forEach((member, i) => {
      const log = openSync(join(work, `${member}.log`), "w");
      processes.push(spawn(requireBinary("etcd"), emulatedArgs(i), { stdio: ["ignore", log, log] }));
    });
    await waitHealthy();
  });

  afterAll(async () => {
    await Promise.all(
      processes.map((p) => (p.exitCode !== null ? undefined : new Promise((r) => p.once("exit", r).kill()))),
    );
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe("members started with the generated flags", () => {
    it("forms the cluster over mutually authenticated peer TLS", () => {
      const list = etcdctl(["member", "list", "--write-out=simple"]);
      for (let i = 0; i < members.length; i++) {
        expect(list).toContain(
          `${members[i]}, https://127.0.0.1:${ports[i].peer}, https://127.0.0.1:${ports[i].client}`,
        );
      }
    });

    it("starts (etcd exits on any unknown flag) and serves clients over TLS with a client certificate", () => {
      etcdctl(["put", "/registry/probe", "ok"]);
      expect(etcdctl(["get", "/registry/probe", "--print-value-only"]).trim()).toBe("ok");
    });

    it("refuses clients without a certificate (client-cert-auth)", () => {
      const withoutCert: Record<string, string> = { ...jobEnv() };
      delete withoutCert.ETCDCTL_CERT;
      delete withoutCert.ETCDCTL_KEY;
      expect(() =>
        etcdctl(["get", "/registry/probe", "--dial-timeout=2s", "--command-timeout=3s"], withoutCert),
      ).toThrow();
    });
  });

  describe("the backup job's scripts", () => {
    it("save checked snapshots with sha256 files and keep only the newest RETAIN", async () => {
      for (let run = 0; run < 3; run++) {
        if (run > 0) await new Promise((r) => setTimeout(r, 1100)); // names have one-second resolution
        sh(SNAPSHOT_SCRIPT);
        sh(STORE_SCRIPT);
      }
      const files = readdirSync(backupDir).sort();
      const snapshots = files.filter((f) => f.endsWith(".db"));
      expect(snapshots).toHaveLength(2);
      expect(files.filter((f) => f.startsWith("."))).toEqual([]);
      for (const snapshot of snapshots) {
        expect(snapshot).toMatch(/^etcd-\d{8}T\d{6}Z\.db$/);
        expect(files).toContain(`${snapshot}.sha256`);
        execFileSync("sha256sum", ["-c", `${snapshot}.sha256`], { cwd: backupDir, stdio: "pipe" });
        // the kept snapshot restores and holds the data
        const restored = join(work, `restore-${snapshot}`);
        execFileSync(
          requireBinary("etcdutl"),
          ["snapshot", "restore", join(backupDir, snapshot), "--data-dir", restored],
          { stdio: "pipe" },
        );
        expect(existsSync(join(restored, "member", "snap", "db"))).toBe(true);
      }
    });
  });
});
