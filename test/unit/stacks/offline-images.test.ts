/**
 * Offline installs: one registry setting (`karmada:controlPlane.images.registry`) rewrites every image
 * the estate pulls — the control plane's, etcd's and its backup job's tools image, the pull-mode agent on
 * members, the addons' — so nothing points at a registry the air-gapped machines cannot reach.
 */
import { FIXTURE_CRD_SOURCE } from "../../support/estate";
import { Registration } from "../../support/mocks";
import { runProgram } from "../../support/program";
import { simulateControllers } from "../members/simulate";
import { testKubeconfig } from "../../support/kubeconfig";

const REGISTRY = "registry.offline.test:5000/mirror";

/** Every `image` value anywhere in `value` (pod templates, CronJob job templates, init containers …). */
function imagesIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => imagesIn(v, found));
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key === "image" && typeof v === "string") found.push(v);
      else imagesIn(v, found);
    }
  }
  return found;
}

describe("an offline estate (every image from the registry setting)", () => {
  let records: Registration[];
  beforeAll(async () => {
    ({ records } = await runProgram(
      "../../stacks",
      {
        "karmada:hostKubeconfig": testKubeconfig("host"),
        "karmada:etcd": {
          inCluster: { replicas: 3, backup: { schedule: "0 * * * *", target: { kind: "pvc", size: "1Gi" } } },
        },
        "karmada:controlPlane": {
          images: { registry: REGISTRY },
          apiServer: { serviceType: "NodePort", externalEndpoint: "10.0.0.5:32443" },
        },
        "karmada:crds": FIXTURE_CRD_SOURCE,
        "karmada:members": [
          { clusterName: "edge-1", mode: "Push", apiEndpoint: "https://10.0.1.1:6443" },
          { clusterName: "edge-2", mode: "Pull", apiEndpoint: "https://10.0.2.1:6443" },
        ],
        "karmada:memberKubeconfigs": {
          "edge-1": testKubeconfig("edge-1"),
          "edge-2": testKubeconfig("edge-2"),
        },
        "karmada:addons": [
          { name: "descheduler", kind: "descheduler" },
          { name: "estimator", kind: "schedulerEstimator" },
        ],
      },
      ["karmada:hostKubeconfig", "karmada:memberKubeconfigs"],
      simulateControllers,
    ));
  });

  test("no image reference points outside the registry", () => {
    const images = records.filter((r) => r.type.startsWith("kubernetes:")).flatMap((r) => imagesIn(r.inputs));
    expect(images.length).toBeGreaterThan(0);
    expect(images.filter((image) => !image.startsWith(`${REGISTRY}/`))).toEqual([]);
  });

  test("which covers etcd, its backup tools, the control plane, the pull agent and the addons", () => {
    const images = new Set(
      records.flatMap((r) => imagesIn(r.inputs)).map((i) => i.slice(REGISTRY.length + 1).split(":")[0]),
    );
    expect([...images].sort()).toEqual(
      expect.arrayContaining([
        "busybox",
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "karmada-aggregated-apiserver",
        "karmada-controller-manager",
        "karmada-scheduler",
        "karmada-webhook",
        "karmada-agent",
        "karmada-descheduler",
        "karmada-scheduler-estimator",
      ]),
    );
  });
});
