import fc from "fast-check";
import { COMPONENT_KEYS, ComponentKey } from "../../../lib/controlplane/config";
import { CONTAINER_PATHS, componentFlags } from "../../../lib/controlplane/flags";
import { CONTROL_PLANE_OWNED_FLAGS } from "../../../lib/controlplane/flags-owned";
import { ControlPlaneComponent } from "../../../lib/controlplane/flags-ports";
import {
  HOSTS_OWNED_FLAGS,
  hostComponentCommand,
  hostsOwnedFlags,
} from "../../../lib/controlplane/hosts/flags";
import { validateControlPlaneConfig } from "../../../lib/controlplane/validate";
import { checkNotOwned } from "../../../lib/validation/owned-flags";
import { testSettings } from "../../support/settings";
import { resolveBoth } from "../controlplane/hostsFixtures";
import { configError } from "./config-error";

const KEYS = Object.keys(COMPONENT_KEYS) as ComponentKey[];
const names = (flags: readonly string[]) => flags.map((f) => f.slice(2, f.indexOf("=")));
/** Every optional component on and a gate everywhere, so every generated flag shows. */
const EVERYTHING = testSettings({
  featureGates: { Failover: true },
  components: Object.fromEntries(
    Object.values(COMPONENT_KEYS).map((c) => [c, { enabled: true, featureGates: { Own: true } }]),
  ),
});
const withArg = (key: ComponentKey, flag: string) => ({
  components: { [key]: { extraArgs: { [flag]: "x" } } },
});

describe("checkNotOwned", () => {
  const owner = { name: "the thing", flags: { "secure-port": "thing.port" } };

  it("names the entry, the flag and the setting that controls it", () => {
    const error = configError(() => checkNotOwned("thing.extraArgs", { v: "2", "secure-port": "1" }, owner));
    expect(error.field).toBe('thing.extraArgs["secure-port"]');
    expect(error.problem).toBe("--secure-port is set by the thing from thing.port");
    expect(error.allowed).toMatch(/any flag the thing does not set/);
  });

  it("passes other flags, including names of Object.prototype members", () => {
    expect(() => checkNotOwned("f", { v: "2", constructor: "x", toString: "y" }, owner)).not.toThrow();
  });
});

describe("control-plane owned flags (containers)", () => {
  const cases = KEYS.flatMap((key) =>
    Object.keys(CONTROL_PLANE_OWNED_FLAGS[COMPONENT_KEYS[key]]).map((flag): [ComponentKey, string] => [
      key,
      flag,
    ]),
  );

  it("refuses every owned flag of every component, naming field, flag and setting", () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), ([key, flag]) => {
        const error = configError(() => validateControlPlaneConfig(withArg(key, flag)));
        expect(error.field).toBe(`components.${key}.extraArgs[${JSON.stringify(flag)}]`);
        expect(error.problem).toBe(
          `--${flag} is set by the control plane from ${CONTROL_PLANE_OWNED_FLAGS[COMPONENT_KEYS[key]][flag]}`,
        );
      }),
      { numRuns: cases.length * 3 },
    );
  });

  it("accepts every other flag name", () => {
    const flagName = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,30}$/);
    fc.assert(
      fc.property(fc.constantFrom(...KEYS), flagName, (key, flag) => {
        fc.pre(!(flag in CONTROL_PLANE_OWNED_FLAGS[COMPONENT_KEYS[key]]));
        validateControlPlaneConfig(withArg(key, flag));
      }),
    );
  });

  it("keeps the tunables of the stacks and docs allowed", () => {
    expect(() =>
      validateControlPlaneConfig({
        components: {
          apiServer: { extraArgs: { "endpoint-reconciler-type": "none", "max-requests-inflight": "3000" } },
          scheduler: { extraArgs: { "enable-scheduler-estimator": "true", "kube-api-qps": "50", v: "4" } },
          descheduler: { extraArgs: { "feature-gates": "Failover=false" } },
        },
      }),
    ).not.toThrow();
  });

  it("the renderer refuses them too, should validation have been skipped", () => {
    const settings = testSettings({
      components: { "karmada-apiserver": { extraArgs: { "etcd-servers": "http://elsewhere:2379" } } },
    });
    const error = configError(() => componentFlags("karmada-apiserver", settings, CONTAINER_PATHS));
    expect(error.field).toBe('components.apiServer.extraArgs["etcd-servers"]');
    expect(error.problem).toMatch(/from etcd \(the EtcdCluster passed as `etcd`\)/);
  });

  // The table must stay true to the generator: what it owns is generated, and every generated flag is
  // either owned or one of these deliberate, tunable defaults.
  const TUNABLE: Record<ControlPlaneComponent, string[]> = {
    "karmada-apiserver": [
      "allow-privileged",
      "disable-admission-plugins",
      "max-mutating-requests-inflight",
      "max-requests-inflight",
      "tls-min-version",
    ],
    "karmada-aggregated-apiserver": ["tls-min-version"],
    "kube-controller-manager": ["controllers", "use-service-account-credentials"],
    "karmada-controller-manager": [],
    "karmada-scheduler": [],
    "karmada-descheduler": [],
    "karmada-webhook": ["tls-min-version"],
    "karmada-metrics-adapter": ["tls-min-version"],
    "karmada-search": ["tls-min-version"],
  };
  test.each(Object.keys(TUNABLE).map((c) => [c as ControlPlaneComponent]))(
    "%s: owned flags are generated; the rest of the generated ones are tunable defaults",
    (component) => {
      const generated = names(componentFlags(component, EVERYTHING, CONTAINER_PATHS));
      const owned = Object.keys(CONTROL_PLANE_OWNED_FLAGS[component]);
      expect(generated).toEqual(expect.arrayContaining(owned));
      expect(generated.filter((f) => !owned.includes(f)).sort()).toEqual(TUNABLE[component]);
    },
  );
});

describe("control-plane owned flags (hosts mode)", () => {
  const hostsOnly = Object.entries(HOSTS_OWNED_FLAGS).flatMap(([component, flags]) =>
    Object.keys(flags!).map((flag) => [component as ControlPlaneComponent, flag] as const),
  );

  test.each(hostsOnly)("%s: refuses --%s, which only hosts mode sets", (component, flag) => {
    const key = KEYS.find((k) => COMPONENT_KEYS[k] === component)!;
    const error = configError(() =>
      resolveBoth({ apiServer: { externalEndpoint: "karmada.example.com" }, ...withArg(key, flag) }),
    );
    expect(error.field).toBe(`components.${key}.extraArgs[${JSON.stringify(flag)}]`);
    expect(error.problem).toBe(
      `--${flag} is set by the control plane in hosts mode from ${HOSTS_OWNED_FLAGS[component]![flag]}`,
    );
  });

  it("owns every flag it adds to the containers' command line", () => {
    const { cp, hs } = resolveBoth({
      apiServer: { externalEndpoint: "karmada.example.com" },
      components: {
        descheduler: { enabled: true },
        search: { enabled: true },
        metricsAdapter: { enabled: true },
      },
    });
    for (const component of hs.components) {
      const container = names(componentFlags(component, cp, CONTAINER_PATHS));
      const added = names(hostComponentCommand(component, cp, hs, hs.machines[0]).slice(1)).filter(
        (f) => !container.includes(f),
      );
      expect(Object.keys(hostsOwnedFlags(component))).toEqual(expect.arrayContaining(added));
    }
  });
});
