import { execFileSync } from "child_process";
import { CONTAINER_PATHS, componentFlags } from "../../lib/controlplane/flags";
import { ControlPlaneComponent } from "../../lib/controlplane/flags-ports";
import { e2eTier } from "../../devkit/engine/tier";
import { reportedVersion, requireBinary, testbedEnv } from "../../devkit/testbed";
import * as path from "path";
import { testSettings } from "../support/settings";

/**
 * Every flag we generate must exist in the real binary: an unknown flag makes the process exit at start.
 * The binaries come from the test bed (`scripts/testbed/build.sh kube karmada kube-previous
 * karmada-previous`): the default release and the oldest one in the catalog, each checked against the
 * flags generated for its own version, every component the library can run (the addons' included).
 */
const BINARIES: [ControlPlaneComponent, string][] = [
  ["karmada-apiserver", "kube-apiserver"],
  ["kube-controller-manager", "kube-controller-manager"],
  ["karmada-aggregated-apiserver", "karmada-aggregated-apiserver"],
  ["karmada-controller-manager", "karmada-controller-manager"],
  ["karmada-scheduler", "karmada-scheduler"],
  ["karmada-webhook", "karmada-webhook"],
  ["karmada-descheduler", "karmada-descheduler"],
  ["karmada-search", "karmada-search"],
  ["karmada-metrics-adapter", "karmada-metrics-adapter"],
];

/** Flag names a binary documents in `--help`. */
function knownFlags(binary: string): Set<string> {
  const help = execFileSync(binary, ["--help"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Set([...help.matchAll(/--([a-z0-9][a-z0-9-]*)/g)].map((m) => m[1]));
}

const tier = e2eTier("generated flags exist in the upstream binaries (test/e2e/flags-upstream.test.ts)", {
  binaries: BINARIES.map(([, binary]) => binary),
  components: ["kube-previous", "karmada-previous"],
});

/** The oldest catalog release's binary (its bin dir from scripts/testbed/env.sh). */
function previousBinary(binary: string): string {
  const { env } = testbedEnv();
  const dir = binary.startsWith("kube-") ? env.TESTBED_KUBE_PREVIOUS_BIN : env.TESTBED_KARMADA_PREVIOUS_BIN;
  return path.join(dir, binary);
}

tier.describe("generated flags exist in the upstream binaries", () => {
  // Every optional flag switched on: feature gates too.
  const settings = testSettings({ featureGates: { Failover: true } });

  it.each(BINARIES)("%s (%s)", (component, binary) => {
    const known = knownFlags(requireBinary(binary));
    const generated = componentFlags(component, settings, CONTAINER_PATHS).map(
      (f) => /^--([^=]+)=/.exec(f)![1],
    );
    expect(generated.filter((name) => !known.has(name))).toEqual([]);
  });

  it.each(BINARIES)("oldest catalog release: %s (%s)", (component, binary) => {
    const version = reportedVersion(previousBinary("karmada-scheduler"), "karmada");
    const old = testSettings({ version, featureGates: { Failover: true } });
    expect(old.release.version).toBe(version);
    const generated = componentFlags(component, old, CONTAINER_PATHS).map((f) => /^--([^=]+)=/.exec(f)![1]);
    const known = knownFlags(previousBinary(binary));
    expect(generated.filter((name) => !known.has(name))).toEqual([]);
  });
});
