import { execFileSync } from "child_process";
import { existsSync, readFileSync } from "fs";
import { homedir } from "os";
import { join } from "path";
import { CONTAINER_PATHS, componentFlags } from "../../lib/controlplane/flags";
import { ControlPlaneComponent } from "../../lib/controlplane/flags-ports";
import { testSettings } from "../support/settings";
import { describeWithTestbed } from "../support/tier";

/**
 * Every flag we generate must exist in the real binary: an unknown flag makes the process exit at start.
 * The binaries come from the test bed (`scripts/testbed/build.sh`), at the versions pinned there.
 * karmada-search and karmada-metrics-adapter are not part of the test bed, so they are not checked here.
 */
const VERSIONS = Object.fromEntries(
  readFileSync(join(__dirname, "../../scripts/testbed/versions.env"), "utf8")
    .split("\n")
    .map((line) => /^([A-Z_]+)=(\S+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1], m[2]]),
);
const TESTBED = join(
  process.env.PULUMI_KARMADA_CACHE ?? join(homedir(), ".cache", "pulumi-karmada"),
  "testbed",
);

const BINARIES: [ControlPlaneComponent, string, string][] = [
  ["karmada-apiserver", `kube-${VERSIONS.KUBE_VERSION}`, "kube-apiserver"],
  ["kube-controller-manager", `kube-${VERSIONS.KUBE_VERSION}`, "kube-controller-manager"],
  ["karmada-aggregated-apiserver", `karmada-${VERSIONS.KARMADA_VERSION}`, "karmada-aggregated-apiserver"],
  ["karmada-controller-manager", `karmada-${VERSIONS.KARMADA_VERSION}`, "karmada-controller-manager"],
  ["karmada-scheduler", `karmada-${VERSIONS.KARMADA_VERSION}`, "karmada-scheduler"],
  ["karmada-webhook", `karmada-${VERSIONS.KARMADA_VERSION}`, "karmada-webhook"],
  ["karmada-descheduler", `karmada-${VERSIONS.KARMADA_VERSION}`, "karmada-descheduler"],
];

/** Flag names a binary documents in `--help`. */
function knownFlags(dir: string, name: string): Set<string> {
  const binary = join(dir, "bin", name);
  // build.sh writes `.done` after the last binary of a component: never read a half-built directory.
  if (!existsSync(join(dir, ".done")) || !existsSync(binary)) {
    throw new Error(
      `${binary} not found or not finished: build the test bed first (scripts/testbed/build.sh)`,
    );
  }
  const help = execFileSync(binary, ["--help"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return new Set([...help.matchAll(/--([a-z0-9][a-z0-9-]*)/g)].map((m) => m[1]));
}

describeWithTestbed(
  "generated flags exist in the upstream binaries",
  [...new Set(BINARIES.map(([, dir]) => dir))],
  () => {
    // Every optional flag switched on: feature gates too.
    const settings = testSettings({ featureGates: { Failover: true } });

    it.each(BINARIES)("%s (%s/%s)", (component, dir, binary) => {
      const known = knownFlags(join(TESTBED, dir), binary);
      const generated = componentFlags(component, settings, CONTAINER_PATHS).map(
        (f) => /^--([^=]+)=/.exec(f)![1],
      );
      expect(generated.filter((name) => !known.has(name))).toEqual([]);
    });
  },
);
