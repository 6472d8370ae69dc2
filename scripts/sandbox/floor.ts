/**
 * TEST BED ONLY: the local estate's processes driven by hand, without Pulumi — the floor the bench
 * (bench/binary-estate.ts) prints beside each figure. On a deployed estate it takes every service the
 * supervisor runs (its exact command line and environment, read from /proc), then stops them in
 * destroy order, starts them in install order until each answers its health probe, and rolls one
 * component host by host — the processes' own start, stop and restart time, nothing of ours.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as https from "https";
import * as http from "http";
import * as path from "path";
import { CONTROL_PLANE_STOP_GRACE_SECONDS } from "../../lib/controlplane/hosts/serviceSpec";
import { DEFAULT_STOP_GRACE_SECONDS } from "../../lib/hosts/service";
import { isRunning } from "../../test/support/kube/processes";
import { Bed, BedHost } from "./bed";

/** How a service proves it is up: an HTTP(S) endpoint answering 200 (TLS not verified: timing only). */
export interface HealthProbe {
  readonly url: string;
  /** Client certificate and key files (etcd requires one). */
  readonly clientCert?: { readonly cert: string; readonly key: string };
}

/** A service of the estate on one host, as its supervisor runs it. */
export interface RunningService {
  readonly host: string;
  /** `pk-etcd`, `pk-karmada-apiserver`, … */
  readonly name: string;
  /** The supervisor's command line (`supervise STATE LOG DELAY -- program args…`). */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly stateDir: string;
  readonly probe: HealthProbe;
}

/** Services grouped as the estate's install order starts them; destroy stops them the other way round. */
const START_TIERS: readonly (readonly string[])[] = [
  ["pk-etcd"],
  ["pk-karmada-apiserver"],
  ["pk-kube-controller-manager", "pk-karmada-aggregated-apiserver"],
  ["pk-karmada-controller-manager", "pk-karmada-scheduler", "pk-karmada-webhook"],
];

/**
 * Destroy order: the controllers, the aggregated API servers, kube-controller-manager (it outlives the
 * objects it finalizes), karmada-apiserver, etcd.
 */
const STOP_TIERS: readonly (readonly string[])[] = [
  ["pk-karmada-controller-manager", "pk-karmada-scheduler", "pk-karmada-webhook"],
  ["pk-karmada-aggregated-apiserver"],
  ["pk-kube-controller-manager"],
  ["pk-karmada-apiserver"],
  ["pk-etcd"],
];

const POLL_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The pid a supervisor recorded; undefined while there is none (it removes the file as it exits). */
const readPid = (file: string): number | undefined => {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
};
const alive = (file: string): boolean => {
  const pid = readPid(file);
  return pid !== undefined && isRunning(pid);
};

/**
 * Every service running on the bed's hosts. `probes` gives the health URL of a control-plane
 * component on a host (`<host>/<component>`); etcd's is its client URL's /health.
 */
export function runningServices(bed: Bed, probes: ReadonlyMap<string, string>): RunningService[] {
  const found: RunningService[] = [];
  const etcdNames = new Set(bed.etcdHosts.map((h) => h.name));
  for (const host of [...bed.etcdHosts, ...bed.controlPlaneHosts]) {
    const runDir = path.join(host.root, "run", "pulumi-karmada");
    if (!fs.existsSync(runDir)) continue;
    for (const name of fs.readdirSync(runDir)) {
      const stateDir = path.join(runDir, name);
      const pid = readPid(path.join(stateDir, "supervisor.pid"));
      if (pid === undefined || !isRunning(pid)) continue;
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const env = Object.fromEntries(
        fs
          .readFileSync(`/proc/${pid}/environ`, "utf8")
          .split("\0")
          .filter((e) => e.includes("="))
          .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
      );
      found.push({
        host: host.name,
        name,
        argv,
        env,
        stateDir,
        probe: probeOf(host, name, etcdNames, probes),
      });
    }
  }
  return found;
}

function probeOf(
  host: BedHost,
  name: string,
  etcdHosts: ReadonlySet<string>,
  probes: ReadonlyMap<string, string>,
): HealthProbe {
  if (name === "pk-etcd" && etcdHosts.has(host.name)) {
    const pki = path.join(host.root, "etc", "etcd", "pki");
    return {
      url: `https://${host.address}:2379/health`,
      clientCert: { cert: path.join(pki, "client.crt"), key: path.join(pki, "client.key") },
    };
  }
  const url = probes.get(`${host.name}/${name.replace(/^pk-/, "")}`);
  if (!url) throw new Error(`no health probe known for ${name} on ${host.name}`);
  return { url };
}

/** Whether the probe answers 200 now. */
function healthy(probe: HealthProbe): Promise<boolean> {
  return new Promise((resolve) => {
    const url = new URL(probe.url);
    const get = url.protocol === "https:" ? https.get : http.get;
    const tls = probe.clientCert
      ? { cert: fs.readFileSync(probe.clientCert.cert), key: fs.readFileSync(probe.clientCert.key) }
      : {};
    const req = get(url, { rejectUnauthorized: false, timeout: 2000, ...tls }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
  });
}

async function untilHealthy(service: RunningService, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await healthy(service.probe))) {
    if (Date.now() > deadline)
      throw new Error(`${service.name} on ${service.host} not healthy at ${service.probe.url}`);
    await sleep(POLL_MS);
  }
}

/**
 * TERM to the supervisor (it passes it on), KILL after the same grace our scripts give; resolves once
 * both are gone.
 */
async function stopService(service: RunningService): Promise<void> {
  const sup = path.join(service.stateDir, "supervisor.pid");
  const child = path.join(service.stateDir, "child.pid");
  const childPid = readPid(child);
  fs.writeFileSync(path.join(service.stateDir, "stop"), "");
  const supPid = readPid(sup);
  if (supPid !== undefined) process.kill(supPid, "SIGTERM");
  // etcd's spec keeps the default grace; the control plane's components get theirs
  const grace = service.name === "pk-etcd" ? DEFAULT_STOP_GRACE_SECONDS : CONTROL_PLANE_STOP_GRACE_SECONDS;
  const deadline = Date.now() + grace * 1000;
  const running = () => alive(sup) || (childPid !== undefined && isRunning(childPid));
  while (running() && Date.now() < deadline) await sleep(POLL_MS);
  for (const pid of [readPid(sup), childPid]) {
    if (pid !== undefined && isRunning(pid)) process.kill(pid, "SIGKILL");
  }
}

/** Starts the supervisor with its recorded command line and environment, detached like our scripts do. */
function startService(service: RunningService): void {
  fs.rmSync(path.join(service.stateDir, "stop"), { force: true });
  const child = spawn(service.argv[0], service.argv.slice(1), {
    detached: true,
    stdio: "ignore",
    env: { ...service.env },
  });
  child.unref();
}

const inTier = (services: readonly RunningService[], tier: readonly string[]) =>
  services.filter((s) => tier.includes(s.name));

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** A by-hand run: its total and each tier's milliseconds (`pk-etcd`, `pk-karmada-apiserver`, …). */
export interface ByHand {
  readonly ms: number;
  readonly tiers: readonly { readonly services: string; readonly ms: number }[];
}

async function tierByTier(
  tiers: readonly (readonly string[])[],
  services: readonly RunningService[],
  each: (tier: readonly RunningService[]) => Promise<void>,
): Promise<ByHand> {
  const done: { services: string; ms: number }[] = [];
  const ms = await timed(async () => {
    for (const tier of tiers)
      done.push({ services: tier.join(" "), ms: await timed(() => each(inTier(services, tier))) });
  });
  return { ms, tiers: done };
}

/** Stops every service, tier by tier in destroy order (a tier's hosts at once). */
export function stopAllByHand(services: readonly RunningService[]): Promise<ByHand> {
  return tierByTier(STOP_TIERS, services, async (tier) => void (await Promise.all(tier.map(stopService))));
}

/** Starts every service, tier by tier in install order, each tier healthy before the next. */
export function startAllByHand(services: readonly RunningService[]): Promise<ByHand> {
  return tierByTier(START_TIERS, services, async (tier) => {
    tier.forEach(startService);
    await Promise.all(tier.map((s) => untilHealthy(s)));
  });
}

/** Restarts one service host by host (`hosts` order), each healthy before the next; milliseconds. */
export function rollByHand(
  services: readonly RunningService[],
  name: string,
  hosts: readonly string[],
): Promise<number> {
  return timed(async () => {
    for (const host of hosts) {
      const service = services.find((s) => s.name === name && s.host === host);
      if (!service) throw new Error(`${name} does not run on ${host}`);
      await stopService(service);
      startService(service);
      await untilHealthy(service);
    }
  });
}
