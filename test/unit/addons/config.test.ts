import { builtinSettings, builtinWorkloads } from "../../../lib/addons/builtins";
import { AddonConfig } from "../../../lib/addons/config";
import { validateAddonConfig } from "../../../lib/addons/validate";
import { loadManifests, manifestPhases } from "../../../lib/addons/manifests";
import { ConfigError } from "../../../lib/validation/errors";
import { testSettings } from "../../support/settings";

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("no error thrown");
}

describe("addon config", () => {
  const cases: [string, AddonConfig, string[], string, RegExp][] = [
    ["unknown kind", { kind: "istio" as never }, [], "kind", /unknown addon kind "istio"/],
    [
      "built-in on members",
      { kind: "search", target: "members" },
      ["a"],
      "target",
      /runs on the host cluster/,
    ],
    ["estimator without members", { kind: "schedulerEstimator" }, [], "members", /is empty/],
    [
      "members for host target",
      { kind: "manifests", target: "host", manifests: { yaml: "a: b" } },
      ["a"],
      "members",
      /target is "host"/,
    ],
    ["empty manifests", { kind: "manifests", manifests: {} }, [], "manifests", /is empty/],
    ["helm without chart", { kind: "helm", helm: { chart: "" } }, [], "helm.chart", /is required/],
    [
      "helm settings on a built-in",
      { kind: "descheduler", helm: { chart: "x" } },
      [],
      "helm",
      /is given for kind "descheduler"/,
    ],
    [
      "bad member name",
      { kind: "schedulerEstimator" },
      ["Bad"],
      "members[0].clusterName",
      /not a usable cluster name/,
    ],
    ["duplicate member", { kind: "schedulerEstimator" }, ["a", "a"], "members[1]", /duplicate "a"/],
    [
      "replicas",
      { kind: "descheduler", overrides: { replicas: 0 } },
      [],
      "overrides.replicas",
      /out of range/,
    ],
  ];
  it.each(cases)("rejects %s", (_, config, members, field, message) => {
    const error = configError(() => validateAddonConfig(config, members));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("defaults built-ins to the host and generic kinds to the control plane", () => {
    expect(validateAddonConfig({ kind: "descheduler" }, [])).toBe("host");
    expect(validateAddonConfig({ kind: "helm", helm: { chart: "c" } }, [])).toBe("controlPlane");
  });
});

describe("built-in settings", () => {
  it("enables the component on a copy and refuses one the control plane already runs", () => {
    const settings = testSettings();
    const copy = builtinSettings(settings, "descheduler", { replicas: 2, extraArgs: { v: "4" } });
    expect(copy.components["karmada-descheduler"]).toMatchObject({
      enabled: true,
      replicas: 2,
      extraArgs: { v: "4" },
    });
    expect(settings.components["karmada-descheduler"].enabled).toBe(false);
    const error = configError(() => builtinSettings(copy, "descheduler"));
    expect(error.message).toMatch(
      /already runs: the control plane enables it \(components.descheduler.enabled\)/,
    );
  });

  it("delegates front-proxy verification to karmada-apiserver instead of mounting its CA", () => {
    const settings = builtinSettings(testSettings(), "metricsAdapter");
    const deployment = builtinWorkloads(settings, "metricsAdapter").find(
      (o) => o.kind === "Deployment",
    ) as any;
    const args: string[] = deployment.spec.template.spec.containers[0].args;
    expect(args.some((a) => a.startsWith("--requestheader-client-ca-file"))).toBe(false);
    expect(args).toContain("--authentication-kubeconfig=/etc/karmada/config/karmada.config");
  });
});

describe("manifests", () => {
  it("loads objects, YAML documents and files in order, unwrapping Lists", () => {
    const files: Record<string, string> = {
      "/x.yaml":
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c2, namespace: n}}\n",
    };
    const objects = loadManifests(
      {
        objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "n" } }],
        yaml: "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: n}\n---\n",
        files: ["/x.yaml"],
      },
      (p) => files[p],
    );
    expect(objects.map((o) => o.metadata.name)).toEqual(["n", "c1", "c2"]);
    expect(manifestPhases(objects).foundation.map((o) => o.kind)).toEqual(["Namespace"]);
  });

  it("names the broken document", () => {
    expect(configError(() => loadManifests({ yaml: "kind: ConfigMap\nmetadata: {name: a}" })).field).toBe(
      "manifests.yaml[0].apiVersion",
    );
    expect(configError(() => loadManifests({ yaml: "a: [" })).field).toBe("manifests.yaml[0]");
    const missing = configError(() =>
      loadManifests({ files: ["/nope.yaml"] }, () => {
        throw new Error("ENOENT");
      }),
    );
    expect(missing.field).toBe("manifests.files[0]");
    const twice = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } };
    expect(configError(() => loadManifests({ objects: [twice, twice] })).message).toMatch(/given twice/);
  });
});
