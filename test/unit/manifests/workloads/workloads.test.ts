import { CORE_COMPONENTS, OPTIONAL_COMPONENTS } from "../../../../lib/catalog";
import { CONTAINER_PATHS, componentFlags } from "../../../../lib/controlplane/flags";
import { ControlPlaneComponent } from "../../../../lib/controlplane/flags-ports";
import { objectNames } from "../../../../lib/controlplane/names";
import type { KubeObject } from "../../../../lib/kube/apply";
import { SKIP_AWAIT_ANNOTATION, hostWorkloadManifests } from "../../../../lib/manifests/workloads";
import { KUBECONFIG_DIR, PKI_DIR } from "../../../../lib/pki/layout";
import { SettingsOverrides, testSettings } from "../../../support/settings";

const all = (overrides: SettingsOverrides = {}) =>
  Object.values(hostWorkloadManifests(testSettings(overrides))).flat();
const find = (objs: KubeObject[], kind: string, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name);
const deployment = (objs: KubeObject[], component: ControlPlaneComponent) =>
  find(objs, "Deployment", objectNames.workload(component)) as any;
const service = (objs: KubeObject[], component: ControlPlaneComponent) =>
  find(objs, "Service", objectNames.workload(component)) as any;
const podSpec = (objs: KubeObject[], component: ControlPlaneComponent) =>
  deployment(objs, component).spec.template.spec;

const ALL_ENABLED: SettingsOverrides = {
  components: Object.fromEntries(OPTIONAL_COMPONENTS.map((c) => [c, { enabled: true }])),
};

describe("hostWorkloadManifests: which objects", () => {
  it("produces a Deployment per core component and no optional one by default", () => {
    const objs = all();
    const deployments = objs.filter((o) => o.kind === "Deployment").map((o) => o.metadata.name);
    expect(deployments.sort()).toEqual(CORE_COMPONENTS.map(objectNames.workload).sort());
  });

  it.each(OPTIONAL_COMPONENTS as ControlPlaneComponent[])("adds %s only when enabled", (component) => {
    expect(deployment(all(), component)).toBeUndefined();
    const objs = all({ components: { [component]: { enabled: true } } });
    expect(deployment(objs, component)).toBeDefined();
  });

  it("puts the groups in install order: apiserver, aggregated apiserver, then the rest", () => {
    const groups = hostWorkloadManifests(testSettings(ALL_ENABLED));
    expect(Object.keys(groups)).toEqual(["apiServer", "aggregatedApiServer", "controllers"]);
    const names = (objs: KubeObject[]) => new Set(objs.map((o) => o.metadata.name));
    expect(names(groups.apiServer)).toEqual(new Set(["karmada-apiserver"]));
    expect(names(groups.aggregatedApiServer)).toEqual(new Set(["karmada-aggregated-apiserver"]));
    expect(names(groups.controllers).has("karmada-apiserver")).toBe(false);
    expect(names(groups.controllers).has("karmada-aggregated-apiserver")).toBe(false);
  });

  it("never produces Secrets, and uses the stable names (no generated suffixes) in the namespace", () => {
    const objs = all({ ...ALL_ENABLED, namespace: "karmada-prod" });
    expect(objs.filter((o) => o.kind === "Secret")).toEqual([]);
    const expected = new Set([...CORE_COMPONENTS, ...OPTIONAL_COMPONENTS].map(objectNames.workload));
    for (const obj of objs) {
      expect(expected).toContain(obj.metadata.name);
      expect(obj.metadata.namespace).toBe("karmada-prod");
    }
  });
});

describe("Deployments", () => {
  it("carry the component's replicas, image, pull policy, resources and priority class", () => {
    const objs = all({
      components: {
        "karmada-scheduler": {
          replicas: 3,
          image: "registry.local/karmada/karmada-scheduler:v9",
          imagePullPolicy: "Always",
          resources: { requests: { cpu: "250m" }, limits: { memory: "1Gi" } },
          priorityClassName: "karmada-critical",
        },
      },
    });
    const d = deployment(objs, "karmada-scheduler");
    const container = d.spec.template.spec.containers[0];
    expect(d.spec.replicas).toBe(3);
    expect(container.image).toBe("registry.local/karmada/karmada-scheduler:v9");
    expect(container.imagePullPolicy).toBe("Always");
    expect(container.resources).toEqual({ requests: { cpu: "250m" }, limits: { memory: "1Gi" } });
    expect(d.spec.template.spec.priorityClassName).toBe("karmada-critical");
  });

  it("puts user labels and annotations on the workload and its pods without touching the selector", () => {
    const objs = all({
      components: {
        "karmada-webhook": {
          labels: { team: "platform", "app.kubernetes.io/name": "hijack" },
          annotations: { "example.com/owner": "ops" },
        },
      },
    });
    const d = deployment(objs, "karmada-webhook");
    for (const meta of [d.metadata, d.spec.template.metadata]) {
      expect(meta.labels.team).toBe("platform");
      expect(meta.labels["app.kubernetes.io/name"]).toBe("karmada-webhook");
      expect(meta.annotations["example.com/owner"]).toBe("ops");
    }
    expect(d.spec.selector.matchLabels).toEqual({
      "app.kubernetes.io/name": "karmada-webhook",
      "app.kubernetes.io/part-of": "karmada",
    });
  });

  it("label every object with name, part-of and managed-by; selectors match their pods", () => {
    for (const obj of all(ALL_ENABLED) as any[]) {
      expect(obj.metadata.labels).toMatchObject({
        "app.kubernetes.io/name": obj.metadata.name,
        "app.kubernetes.io/part-of": "karmada",
        "app.kubernetes.io/managed-by": "pulumi-karmada",
      });
      if (obj.kind === "Deployment") {
        expect(obj.spec.template.metadata.labels).toMatchObject(obj.spec.selector.matchLabels);
      }
    }
  });

  it.each([...CORE_COMPONENTS, ...OPTIONAL_COMPONENTS] as ControlPlaneComponent[])(
    "%s runs with the shared flags and mounts its Secrets by name",
    (component) => {
      const settings = testSettings(ALL_ENABLED);
      const objs = Object.values(hostWorkloadManifests(settings)).flat();
      const spec = podSpec(objs, component);
      const container = spec.containers[0];
      expect(container.args).toEqual(componentFlags(component, settings, CONTAINER_PATHS));
      const mounts = Object.fromEntries(container.volumeMounts.map((m: any) => [m.mountPath, m.name]));
      const secrets = Object.fromEntries(
        spec.volumes.filter((v: any) => v.secret).map((v: any) => [v.name, v.secret.secretName]),
      );
      expect(secrets[mounts[PKI_DIR]]).toBe(objectNames.certSecret(component));
      if (component === "karmada-apiserver") {
        expect(mounts[KUBECONFIG_DIR]).toBeUndefined();
      } else {
        expect(secrets[mounts[KUBECONFIG_DIR]]).toBe(objectNames.kubeconfigSecret(component));
      }
    },
  );

  it("run as non-root without privileges or a writable root filesystem", () => {
    for (const obj of all(ALL_ENABLED).filter((o) => o.kind === "Deployment") as any[]) {
      const spec = obj.spec.template.spec;
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      expect(spec.automountServiceAccountToken).toBe(false);
      const sc = spec.containers[0].securityContext;
      expect(sc).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(sc.capabilities.drop).toEqual(["ALL"]);
    }
  });

  it.each([
    ["karmada-apiserver", 5443, "HTTPS", "/livez"],
    ["kube-controller-manager", 10257, "HTTPS", "/healthz"],
    ["karmada-controller-manager", 10357, "HTTP", "/healthz"],
    ["karmada-scheduler", 10351, "HTTP", "/healthz"],
    ["karmada-descheduler", 10358, "HTTP", "/healthz"],
  ] as const)("%s is probed on port %d (%s %s)", (component, port, scheme, path) => {
    const container = podSpec(all(ALL_ENABLED), component).containers[0];
    expect(container.livenessProbe.httpGet).toEqual({ path, port, scheme });
    expect(container.readinessProbe.httpGet.port).toBe(port);
  });
});

describe("high availability", () => {
  it("spreads replicas across nodes and adds a PodDisruptionBudget only with more than one replica", () => {
    const objs = all({ components: { "karmada-controller-manager": { replicas: 2 } } });
    const spread = podSpec(objs, "karmada-controller-manager").affinity.podAntiAffinity;
    const term = spread.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    expect(term.topologyKey).toBe("kubernetes.io/hostname");
    expect(term.labelSelector.matchLabels).toEqual(
      deployment(objs, "karmada-controller-manager").spec.selector.matchLabels,
    );
    const pdb = find(objs, "PodDisruptionBudget", "karmada-controller-manager") as any;
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.spec.selector.matchLabels).toEqual(term.labelSelector.matchLabels);

    expect(podSpec(objs, "karmada-scheduler").affinity).toBeUndefined();
    expect(find(objs, "PodDisruptionBudget", "karmada-scheduler")).toBeUndefined();
  });
});

describe("Services", () => {
  it("exposes karmada-apiserver as ClusterIP by default on port 5443 named client", () => {
    const svc = service(all(), "karmada-apiserver");
    expect(svc.spec.type).toBe("ClusterIP");
    expect(svc.spec.ports).toEqual([{ name: "client", port: 5443, targetPort: 5443, protocol: "TCP" }]);
  });

  it("exposes karmada-apiserver on a fixed NodePort", () => {
    const svc = service(
      all({ apiServer: { serviceType: "NodePort", nodePort: 32443 } }),
      "karmada-apiserver",
    );
    expect(svc.spec.type).toBe("NodePort");
    expect(svc.spec.ports[0].nodePort).toBe(32443);
  });

  it("exposes karmada-apiserver through a LoadBalancer with class and annotations", () => {
    const svc = service(
      all({
        apiServer: {
          serviceType: "LoadBalancer",
          loadBalancerClass: "example.com/internal",
          serviceAnnotations: { "lb.example.com/internal": "true" },
          nodePort: 30000,
        },
      }),
      "karmada-apiserver",
    );
    expect(svc.spec.type).toBe("LoadBalancer");
    expect(svc.spec.loadBalancerClass).toBe("example.com/internal");
    expect(svc.metadata.annotations).toEqual({ "lb.example.com/internal": "true" });
    expect(svc.spec.ports[0].nodePort).toBeUndefined();
  });

  it("ignores the load balancer class unless the type is LoadBalancer", () => {
    const svc = service(
      all({ apiServer: { loadBalancerClass: "example.com/internal" } }),
      "karmada-apiserver",
    );
    expect(svc.spec.loadBalancerClass).toBeUndefined();
  });

  it.each([
    "karmada-aggregated-apiserver",
    "karmada-webhook",
    "karmada-metrics-adapter",
    "karmada-search",
  ] as const)("serves %s on 443, targeting the container's https port", (component) => {
    const objs = all(ALL_ENABLED);
    const [port] = service(objs, component).spec.ports;
    const https = podSpec(objs, component).containers[0].ports.find((p: any) => p.name === "https");
    expect(port).toEqual({ name: "https", port: 443, targetPort: https.containerPort, protocol: "TCP" });
  });

  it("maps the webhook Service 443 to 8443, as upstream", () => {
    expect(service(all(), "karmada-webhook").spec.ports[0].targetPort).toBe(8443);
  });

  it.each([
    "kube-controller-manager",
    "karmada-controller-manager",
    "karmada-scheduler",
    "karmada-descheduler",
  ] as const)("gives %s no Service (nothing calls it)", (component) => {
    expect(service(all(ALL_ENABLED), component)).toBeUndefined();
  });
});

describe("awaitWorkloads", () => {
  it("marks every object skip-await only when workloads are not awaited (test bed)", () => {
    const manyReplicas = {
      components: { "karmada-webhook": { replicas: 2 } },
      apiServer: { serviceAnnotations: {} },
    };
    for (const obj of all({ ...manyReplicas, awaitWorkloads: false })) {
      expect((obj.metadata as any).annotations?.[SKIP_AWAIT_ANNOTATION]).toBe("true");
    }
    for (const obj of all({ ...manyReplicas, awaitWorkloads: true })) {
      expect((obj.metadata as any).annotations?.[SKIP_AWAIT_ANNOTATION]).toBeUndefined();
    }
  });
});
