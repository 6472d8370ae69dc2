/**
 * Dependencies on resources registered later (the CRDs once their bundle has loaded) are written with
 * `dependsOnLater` — a plain array with one promised entry — instead of a promise of the whole list,
 * which the typed SDK classes turn into an Output of Resource objects that the SDK walks again and again.
 * These tests hold the rewrite to the same edges: the helper against the old expression, and the
 * control plane's controllers against what they must wait for.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { dependsOnLater } from "../../../components/controlplane/dependencies";
import { kubeResourceName } from "../../../lib/kube/apply";
import { hostWorkloadManifests } from "../../../lib/manifests/workloads";
import { buildEstate } from "../../support/estate";
import { Registration, find, recordResources, settle } from "../../support/mocks";

const sorted = (values: Iterable<string>) => [...values].sort();

describe("dependsOnLater", () => {
  it("records exactly the edges of a promise of the whole list, late resources included", async () => {
    const records = recordResources();
    const provider = new k8s.Provider("cluster", { kubeconfig: "kubeconfig", clusterIdentifier: "cluster" });
    const configMap = (name: string, dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]>) =>
      new k8s.core.v1.ConfigMap(name, { metadata: { name } }, { provider, dependsOn });
    const now = [configMap("now-a"), configMap("now-b")];
    let resolveLater: (resources: pulumi.Resource[]) => void = () => undefined;
    const later = new Promise<pulumi.Resource[]>((resolve) => (resolveLater = resolve));
    const viaPromise = configMap(
      "via-promise",
      later.then((late) => [...now, ...late]),
    );
    const viaArray = configMap("via-array", dependsOnLater(now, later));
    // registered after both dependents, as the CRDs are
    const late = [configMap("late-c"), configMap("late-d")];
    resolveLater(late);
    await settle(provider, ...now, ...late, viaPromise, viaArray);

    const urnOf = (name: string) => find(records, "ConfigMap", name).urn;
    const edges = (name: string) => sorted(find(records, "ConfigMap", name).dependencies);
    expect(edges("via-array")).toEqual(edges("via-promise"));
    expect(edges("via-array")).toEqual(sorted(["now-a", "now-b", "late-c", "late-d"].map(urnOf)));
  });

  it("stays a plain array through the typed classes' option merging, where a promise becomes an Output", () => {
    const merged = pulumi.mergeOptions({}, { dependsOn: dependsOnLater([], Promise.resolve([])) });
    expect(Array.isArray(merged.dependsOn)).toBe(true);
    const promised = pulumi.mergeOptions({}, { dependsOn: Promise.resolve([]) });
    expect(pulumi.Output.isInstance(promised.dependsOn)).toBe(true);
  });
});

describe("control plane controllers (containerized)", () => {
  it("each waits for exactly the aggregated API server and every control-plane object inside Karmada, and reads only certificates", async () => {
    const { records, controlPlane } = await buildEstate();
    const workloads = hostWorkloadManifests(controlPlane.settings);
    const nameOf = (obj: Parameters<typeof kubeResourceName>[1]) => kubeResourceName("karmada", obj);
    const byName = new Map(records.map((r) => [r.name, r]));
    const urnsOf = (rs: Registration[]) => sorted(rs.map((r) => r.urn));

    const aggregated = workloads.aggregatedApiServer.map((o) => byName.get(nameOf(o))!);
    const insideKarmada = records.filter((r) => r.custom && r.name.startsWith("karmada-in-karmada-"));
    const crds = insideKarmada.filter((r) => r.type.endsWith(":CustomResourceDefinition"));
    expect(aggregated.every(Boolean)).toBe(true);
    expect(crds.length).toBeGreaterThan(0);

    const expected = urnsOf([...aggregated, ...insideKarmada]);
    expect(workloads.controllers.length).toBeGreaterThan(0);
    for (const obj of workloads.controllers) {
      const controller = byName.get(nameOf(obj));
      // input edges come from the pod template's certificates checksum: certificates only
      const inputs = new Set(controller?.inputDependencies ?? []);
      const waits = (controller?.dependencies ?? []).filter((urn) => !inputs.has(urn));
      expect({ name: nameOf(obj), dependencies: sorted(waits) }).toEqual({
        name: nameOf(obj),
        dependencies: expected,
      });
      for (const urn of inputs) expect(urn).toMatch(/\$tls:index\/(selfSignedCert|locallySignedCert):/);
    }
  });
});
