/**
 * TEST BED ONLY: the local estate's services driven by hand, without Pulumi — the floor the bench
 * (bench/binary-estate.ts) prints beside each figure. Each service is a systemd unit `pk-*` on its machine:
 * on a deployed estate this takes the active ones and, with systemctl over SSH, stops them in destroy
 * order, starts them in install order until each answers its health probe (from this machine), and
 * restarts one component machine by machine — the services' own start, stop and restart time under
 * systemd, plus the SSH session each command costs (our steps pay one too), nothing of ours.
 */
import * as fs from "fs";
import * as https from "https";
import * as http from "http";
import * as path from "path";
import { onMachine } from "../lab/machine";
import { LabPlan, MachinePlan } from "../lab/plan";
import { CONTROL_PLANE_STOP_GRACE_SECONDS } from "../../lib/controlplane/hosts/serviceSpec";
import { DEFAULT_STOP_GRACE_SECONDS } from "../../lib/hosts/service";
import { Bed, BedHost } from "./bed";

/** How a service proves it is up: an HTTP(S) endpoint answering 200 (TLS not verified: timing only). */
interface HealthProbe {
  readonly url: string;
  /** Client certificate and key files, on this machine (etcd requires one). */
  readonly clientCert?: { readonly cert: string; readonly key: string };
}

/** A service of the estate on one machine: its systemd unit. */
export interface RunningService {
  readonly host: string;
  /** The unit without its `.service`: `pk-etcd`, `pk-karmada-apiserver`, … */
  readonly name: string;
  /** Where systemctl reaches it (over SSH). */
  readonly lab: LabPlan;
  readonly machine: MachinePlan;
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

/** The `pk-*` services active on a machine (timers and finished jobs are not). */
async function activeUnits(lab: LabPlan, host: BedHost): Promise<string[]> {
  const listed = await onMachine(
    lab,
    host.machine,
    "systemctl list-units 'pk-*' --type=service --state=active --no-legend --plain",
  );
  return listed
    .split("\n")
    .map((line) => line.trim().split(/\s+/)[0])
    .filter(Boolean)
    .map((unit) => unit.replace(/\.service$/, ""));
}

/**
 * Every service active on the bed's etcd and control-plane machines. `probes` gives the health URL of a
 * control-plane component on a host (`<host>/<component>`); etcd's is its client URL's /health.
 */
export async function runningServices(
  bed: Bed,
  probes: ReadonlyMap<string, string>,
): Promise<RunningService[]> {
  const lab = bed.lab.plan;
  const etcdNames = new Set(bed.etcdHosts.map((h) => h.name));
  const hosts = [...bed.etcdHosts, ...bed.controlPlaneHosts];
  const units = await Promise.all(hosts.map((host) => activeUnits(lab, host)));
  return hosts.flatMap((host, i) =>
    units[i].map((name) => ({
      host: host.name,
      name,
      lab,
      machine: host.machine,
      probe: probeOf(host, name, etcdNames, probes),
    })),
  );
}

function probeOf(
  host: BedHost,
  name: string,
  etcdHosts: ReadonlySet<string>,
  probes: ReadonlyMap<string, string>,
): HealthProbe {
  if (name === "pk-etcd" && etcdHosts.has(host.name)) {
    // the machine's own client certificate, read from its disk
    const pki = path.join(host.files, "etc", "etcd", "pki");
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

/** Runs `command` on the service's machine; resolves its output. */
const onItsMachine = (service: RunningService, command: string, timeoutMs?: number): Promise<string> =>
  onMachine(service.lab, service.machine, command, timeoutMs);
const unitOf = (service: RunningService) => `${service.name}.service`;

/**
 * `systemctl stop`, the unit KILLed after the same grace our scripts give (the units keep systemd's 90 s
 * stop timeout: lib/hosts/serviceRunner.ts); resolves once it is stopped.
 */
async function stopService(service: RunningService): Promise<void> {
  // etcd's spec keeps the default grace; the control plane's components get theirs
  const grace = service.name === "pk-etcd" ? DEFAULT_STOP_GRACE_SECONDS : CONTROL_PLANE_STOP_GRACE_SECONDS;
  const unit = unitOf(service);
  const kill = `{ systemctl kill --signal=SIGKILL ${unit}; systemctl stop ${unit}; }`;
  await onItsMachine(service, `timeout ${grace} systemctl stop ${unit} || ${kill}`, (grace + 60) * 1000);
}

/** Queues the unit's start, as our scripts do: its health probe says when it is up. */
async function startService(service: RunningService): Promise<void> {
  await onItsMachine(service, `systemctl start --no-block ${unitOf(service)}`);
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
    await Promise.all(tier.map(startService));
    await Promise.all(tier.map((s) => untilHealthy(s)));
  });
}

/**
 * Restarts one service host by host (`hosts` order) with `systemctl restart` (it returns once the old
 * process is gone and the new one runs), each healthy before the next; milliseconds.
 */
export function rollByHand(
  services: readonly RunningService[],
  name: string,
  hosts: readonly string[],
): Promise<number> {
  return timed(async () => {
    for (const host of hosts) {
      const service = services.find((s) => s.name === name && s.host === host);
      if (!service) throw new Error(`${name} does not run on ${host}`);
      await onItsMachine(service, `systemctl restart ${unitOf(service)}`);
      await untilHealthy(service);
    }
  });
}
