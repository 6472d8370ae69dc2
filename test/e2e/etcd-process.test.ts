import { ChildProcess, execFileSync, spawn } from "child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "fs";
import { get } from "http";
import { createServer } from "net";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { resolveEtcdInClusterSettings } from "../../lib/etcd/resolve";
import {
  ETCD_CERT_SECRET_KEYS,
  ETCD_PKI_DIR,
  ETCD_PORTS,
  MEMBERSHIP_SCRIPT,
  MEMBER_ENTRYPOINT_SCRIPT,
  MEMBER_ENV,
  POD_NAME_ENV,
  SNAPSHOT_SCRIPT,
  STORE_SCRIPT,
  etcdFlags,
  etcdMemberAddresses,
  etcdMemberDnsName,
  etcdMemberNames,
} from "../../lib/manifests/etcd";
import { keyCount, putKeysScript } from "../support/etcdData";
import { e2eTier } from "../../devkit/engine/tier";
import { requireBinary } from "../../devkit/testbed";
import { generateCa, openssl as runOpenssl } from "../../devkit/pki";
import { waitFor } from "../../devkit/kubeClient";

/**
 * Runs a real etcd cluster (the test bed's pinned build) the way the StatefulSet starts its members —
 * the entrypoint script under dash with only etcd and etcdctl on its PATH, the template's flags — then
 * grows and shrinks it as a replica change does, and runs the backup job's scripts against it. The
 * container runtime is emulated: `$(POD_NAME)` expanded as the kubelet does, the Secret and data mounts
 * mapped to temp directories, each member's ports moved to free local ports and the members' DNS names
 * pointed at them (the host network and resolver are shared), the client Service played by the list of
 * the members' client URLs.
 */
const tier = e2eTier("etcd members with the generated flags (test/e2e/etcd-process.test.ts)", {
  binaries: ["etcd", "etcdctl", "etcdutl"],
});

jest.setTimeout(60_000);

// created when the suite starts, not at import: a suite that cannot run leaves nothing behind
let work: string;
let pkiDir: string;
let backupDir: string;
let binDir: string;
/** dash: the strictest POSIX shell here (the members' PATH holds only etcd and etcdctl, so it is named by path). */
let dash: string;
const settings = resolveEtcdInClusterSettings({ namespace: "karmada-system", name: "etcd", replicas: 3 });
/** Five pods: the first three found the cluster, the other two come with a scale-out. */
const grown = resolveEtcdInClusterSettings({ namespace: "karmada-system", name: "etcd", replicas: 5 });
const members = etcdMemberNames(grown);
const founders = etcdMemberNames(settings);
const processes: ChildProcess[] = [];
type Ports = { client: number; peer: number; metrics: number };
const ports: Ports[] = [];

const openssl = (...args: string[]) => runOpenssl(args, { cwd: pkiDir });

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

/** Maps in-cluster addresses and mounts to this machine's (ports of every member, temp directories). */
function mapAddresses(value: string, index: number): string {
  const own = ports[index];
  let mapped = value
    .replaceAll(`$(${POD_NAME_ENV})`, members[index])
    .replaceAll(ETCD_PKI_DIR, pkiDir)
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
}

const peerUrl = (index: number) => `https://127.0.0.1:${ports[index].peer}`;
const clientUrls = () => ports.map((p) => `https://127.0.0.1:${p.client}`).join(",");
const dataMount = (index: number) => join(work, members[index]);

/** The member container's environment as the pod template gives it, mapped. */
function memberEnv(index: number): Record<string, string> {
  return {
    PATH: binDir, // etcd and etcdctl only: the etcd image has a shell and no coreutils
    [POD_NAME_ENV]: members[index],
    [MEMBER_ENV.peerUrl]: peerUrl(index),
    [MEMBER_ENV.dataMount]: dataMount(index),
    [MEMBER_ENV.bootstrapFile]: join(work, "bootstrap", "initial-cluster"),
    [MEMBER_ENV.clusterUrl]: clientUrls(),
    [MEMBER_ENV.pkiDir]: pkiDir,
  };
}

/** Seconds before a member that ended is started again (the kubelet's back-off starts at 10 s). */
const RESTART_DELAY_MS = 2_000;
/** Members whose "pod" is gone: not restarted when they end. */
const stopped = new Set<number>();
/** How often each member's entrypoint has been started, for failure messages. */
const starts = new Map<number, number>();
/**
 * How long a member may take to report health. Joining copies a snapshot while the writer runs, and CI
 * runs this beside the e2e suites on two cores: a minute was not always enough there.
 */
const HEALTHY_WITHIN_MS = 240_000;
/** Jest's limit for a step that waits for members (above HEALTHY_WITHIN_MS, so the helpful message wins). */
const MEMBER_STEP_MS = HEALTHY_WITHIN_MS + 60_000;

/**
 * Starts member `index` as its pod does — the entrypoint with the template's flags — and, like the
 * kubelet, starts it again when it ends (the entrypoint's way to retry) until `stopMember`.
 */
function startMember(index: number, env: Record<string, string> = memberEnv(index)): ChildProcess {
  stopped.delete(index);
  starts.set(index, (starts.get(index) ?? 0) + 1);
  mkdirSync(dataMount(index), { recursive: true });
  const log = openSync(join(work, `${members[index]}.log`), "a");
  const args = etcdFlags(settings).map((flag) => mapAddresses(flag, index));
  const child = spawn(dash, ["-c", MEMBER_ENTRYPOINT_SCRIPT, "etcd-member", ...args], {
    env,
    stdio: ["ignore", log, log],
  });
  processes[index] = child;
  child.once("exit", () => {
    setTimeout(() => {
      if (!stopped.has(index) && processes[index] === child) startMember(index, env);
    }, RESTART_DELAY_MS);
  });
  return child;
}

/** Stops member `index` for good (SIGTERM, as the kubelet does) and waits for it to exit. */
async function stopMember(index: number): Promise<void> {
  stopped.add(index);
  const child = processes[index];
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((r) => child.once("exit", r).kill("SIGTERM"));
}

/** `etcdctl member list` as [name, peer URL, status] rows. */
function memberList(): string[][] {
  return etcdctl(["member", "list", "-w", "simple"])
    .trim()
    .split("\n")
    .map((line) => line.split(", "))
    .map(([, status, name, peer]) => [name, peer, status])
    .sort((a, b) => a[0].localeCompare(b[0]));
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

/** Waits until the given members report health; `/health` needs a leader, so peers must have met over TLS. */
async function waitHealthy(indexes: number[]): Promise<void> {
  const deadline = Date.now() + HEALTHY_WITHIN_MS;
  for (const i of indexes) {
    for (;;) {
      if (Date.now() > deadline) {
        const log = readFileSync(join(work, `${members[i]}.log`), "utf8");
        throw new Error(
          `${members[i]} did not become healthy within ${HEALTHY_WITHIN_MS / 1000} s ` +
            `(its entrypoint started ${starts.get(i) ?? 0} times); the end of its log:\n${log.slice(-8_000)}`,
        );
      }
      if ((await healthOf(ports[i].metrics)) === "true") break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Client certificate settings for etcdctl. */
const tlsEnv = () => ({
  ETCDCTL_API: "3",
  ETCDCTL_CACERT: join(pkiDir, ETCD_CERT_SECRET_KEYS.ca),
  ETCDCTL_CERT: join(pkiDir, ETCD_CERT_SECRET_KEYS.serverCert),
  ETCDCTL_KEY: join(pkiDir, ETCD_CERT_SECRET_KEYS.serverKey),
});

/** Environment of the backup job's containers (ETCDCTL_* as the CronJob sets them, mapped like the mounts). */
const jobEnv = () => ({
  PATH: `${dirname(requireBinary("etcdctl"))}:${process.env.PATH}`,
  BACKUP_DIR: backupDir,
  ...tlsEnv(),
  ETCDCTL_ENDPOINTS: `https://127.0.0.1:${ports[0].client}`,
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
    dash = execFileSync("sh", ["-c", "command -v dash"], { encoding: "utf8" }).trim();
    binDir = join(work, "bin");
    mkdirSync(binDir);
    for (const binary of ["etcd", "etcdctl"]) symlinkSync(requireBinary(binary), join(binDir, binary));
    while (ports.length < members.length)
      ports.push({ client: await freePort(), peer: await freePort(), metrics: await freePort() });
    // the bootstrap ConfigMap's value, mapped
    mkdirSync(join(work, "bootstrap"));
    const initialCluster = founders
      .map(
        (member, i) =>
          `${member}=${mapAddresses(`https://${etcdMemberDnsName(settings, member)}:${ETCD_PORTS.peer}`, i)}`,
      )
      .join(",");
    writeFileSync(join(work, "bootstrap", "initial-cluster"), `${initialCluster}\n`);
    founders.forEach((_, i) => startMember(i));
    await waitHealthy([0, 1, 2]);
  }, MEMBER_STEP_MS);

  afterAll(async () => {
    await Promise.all(members.map((_, i) => stopMember(i)));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe("members started with the generated flags", () => {
    it("forms the cluster of the bootstrap members over mutually authenticated peer TLS", () => {
      const list = etcdctl(["member", "list", "--write-out=simple"]);
      for (let i = 0; i < founders.length; i++) {
        expect(list).toContain(
          `${members[i]}, https://127.0.0.1:${ports[i].peer}, https://127.0.0.1:${ports[i].client}`,
        );
      }
      expect(memberList()).toHaveLength(3);
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

  describe("a replica change: 3 → 5 → 3 with a writer running, members restarted and one losing its volume", () => {
    const stopFile = () => join(work, "stop-writer");
    let writer: ChildProcess;
    let writerExit: Promise<number | null>;
    let writerOutput = "";
    const writing = () => {
      if (writer.exitCode !== null) console.log(`the writer ended: ${writerOutput}`);
      return writer.exitCode === null;
    };
    /** The membership job with the replicas given, as its pod runs it. */
    const membershipJob = (replicas: number) =>
      execFileSync(dash, ["-c", MEMBERSHIP_SCRIPT], {
        env: {
          PATH: binDir,
          ...tlsEnv(),
          ETCDCTL_ENDPOINTS: clientUrls(),
          ETCDCTL_DIAL_TIMEOUT: "3s",
          ETCDCTL_COMMAND_TIMEOUT: "10s",
          KEEP_PEER_URLS: members
            .slice(0, replicas)
            .map((_, i) => peerUrl(i))
            .join(" "),
        },
        encoding: "utf8",
        stdio: "pipe",
      });
    const idOf = (name: string) =>
      etcdctl(["member", "list", "-w", "simple"])
        .split("\n")
        .find((line) => line.split(", ")[2] === name)
        ?.split(", ")[0];

    beforeAll(() => {
      writer = spawn(dash, ["-c", putKeysScript("etcdctl", "scale/", 1_000_000, { stopFile: stopFile() })], {
        env: { PATH: binDir, ...tlsEnv(), ETCDCTL_ENDPOINTS: clientUrls() },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      writer.stdout!.on("data", (chunk) => (writerOutput += chunk));
      writer.stderr!.on("data", (chunk) => (writerOutput += chunk));
      writerExit = new Promise((resolve) => writer.once("exit", resolve));
    });

    // a step that failed before the last one leaves the writer running: end it, or jest waits for it
    afterAll(async () => {
      if (writer && writer.exitCode === null && writer.signalCode === null) {
        process.kill(-writer.pid!, "SIGTERM"); // its group: the etcdctl of a pipeline outlives the shell
        await writerExit;
      }
    });

    it(
      "grows: the two new pods add themselves and start with the membership etcd reports",
      async () => {
        expect(writing()).toBe(true);
        startMember(3);
        startMember(4);
        await waitHealthy([3, 4]);
        // `started` once a member has published itself through raft, a moment after /health answers
        const all = JSON.stringify(members.map((name, i) => [name, peerUrl(i), "started"]));
        await waitFor("every member started", async () => JSON.stringify(memberList()) === all, 30_000, 500);
        expect(memberList()).toEqual(members.map((name, i) => [name, peerUrl(i), "started"]));
        expect(readFileSync(join(work, "etcd-3.log"), "utf8")).toContain("joining the cluster as");
      },
      MEMBER_STEP_MS,
    );

    it("the membership job leaves a member alone while its pod still runs (and fails, to be retried)", () => {
      expect(() => membershipJob(3)).toThrow(/etcd-4 .* still serves|etcd-3 .* still serves/);
      expect(memberList()).toHaveLength(5);
    });

    it(
      "shrinks: once the pods have stopped, the membership job removes their members",
      async () => {
        expect(writing()).toBe(true);
        await Promise.all([stopMember(3), stopMember(4)]);
        const out = membershipJob(3);
        expect(out).toContain("removing member etcd-3");
        expect(out).toContain("removing member etcd-4");
        expect(memberList().map(([name]) => name)).toEqual(founders);
        // nothing left to do: the job only lists
        expect(membershipJob(3)).not.toContain("removing");
      },
      MEMBER_STEP_MS,
    );

    it(
      "a pod coming back with a removed member's data sets that data aside untouched and joins afresh",
      async () => {
        startMember(3);
        await waitHealthy([3]);
        expect(readFileSync(join(dataMount(3), "data-dir"), "utf8").trim()).toBe("data.1");
        expect(existsSync(join(dataMount(3), "data", "member", "wal"))).toBe(true);
        expect(readFileSync(join(work, "etcd-3.log"), "utf8")).toContain("does not list this member");
        const etcd3 = () => memberList().map(([name, , status]) => `${name} ${status}`);
        await waitFor("etcd-3 started", async () => etcd3().includes("etcd-3 started"), 30_000, 500);
        await stopMember(3);
        membershipJob(3);
        expect(memberList()).toHaveLength(3);
      },
      MEMBER_STEP_MS,
    );

    it(
      "a member restarted with its data keeps its identity",
      async () => {
        const before = idOf("etcd-2");
        await stopMember(2);
        startMember(2);
        await waitHealthy([2]);
        expect(idOf("etcd-2")).toBe(before);
      },
      MEMBER_STEP_MS,
    );

    it(
      "a member that lost its volume is replaced under the same name and catches up",
      async () => {
        expect(writing()).toBe(true);
        const before = idOf("etcd-1");
        await stopMember(1);
        rmSync(dataMount(1), { recursive: true, force: true });
        startMember(1);
        await waitHealthy([1]);
        expect(idOf("etcd-1")).not.toBe(before);
        expect(
          memberList()
            .map(([name]) => name)
            .sort(),
        ).toEqual(founders);
      },
      MEMBER_STEP_MS,
    );

    it(
      "a pod of a scale-out never founds a cluster of its own when nothing answers",
      async () => {
        rmSync(dataMount(4), { recursive: true, force: true });
        const lonely = startMember(4, { ...memberEnv(4), [MEMBER_ENV.clusterUrl]: "https://127.0.0.1:1" });
        const code = await new Promise((resolve) => lonely.once("exit", resolve));
        stopped.add(4);
        expect(code).toBe(1);
        expect(readFileSync(join(work, "etcd-4.log"), "utf8")).toContain("not a bootstrap member");
        expect(existsSync(join(dataMount(4), "data"))).toBe(false);
      },
      MEMBER_STEP_MS,
    );

    it(
      "loses no key: every key the writer wrote is on every member",
      async () => {
        expect(writing()).toBe(true);
        writeFileSync(stopFile(), "");
        const code = await writerExit;
        if (code !== 0) console.log(writerOutput);
        expect(code).toBe(0);
        const written = Number(/wrote (\d+) keys/.exec(writerOutput)?.[1]);
        console.log(`writer: ${written} keys through 3 → 5 → 3 and two member restarts`);
        expect(written).toBeGreaterThan(1000);
        // each member's own copy (serializable): a follower may apply the last entries a moment later
        const counts = async () => {
          for (let attempt = 0; ; attempt++) {
            const own = [0, 1, 2].map((i) =>
              keyCount(`https://127.0.0.1:${ports[i].client}`, "scale/", {
                env: tlsEnv(),
                serializable: true,
              }),
            );
            if (own.every((n) => n === written) || attempt === 20) return own;
            await new Promise((r) => setTimeout(r, 500));
          }
        };
        expect(await counts()).toEqual([written, written, written]);
      },
      MEMBER_STEP_MS,
    );
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
