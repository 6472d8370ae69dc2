import { Addon } from "../../../components/addon";
import { CORE_COMPONENTS } from "../../../lib/catalog/components";
import { Registration, find, isSecret, settle, valueOf } from "../../support/mocks";
import { buildEstate, kubeObjects } from "../../support/estate";
import { buildMemberEstate, childrenOf } from "../members/estate";

const byUrn = (records: Registration[]) => new Map(records.map((r) => [r.urn, r]));
const isCrd = (r: Registration) => r.type === "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";

describe("KarmadaControlPlane (containerized) graph", () => {
  let records: Registration[];
  let objects: Map<string, Registration>;
  let estate: Awaited<ReturnType<typeof buildEstate>>;

  beforeAll(async () => {
    estate = await buildEstate({
      namespace: "karmada-system",
      apiServer: {
        serviceType: "LoadBalancer",
        externalEndpoint: "karmada.example.com",
        extraSans: ["10.1.2.3"],
      },
      components: {
        scheduler: { replicas: 3, featureGates: { Failover: true } },
        descheduler: { enabled: true },
      },
    });
    records = estate.records;
    objects = kubeObjects(records);
  });

  it("registers every host-cluster workload and Service of the control plane", () => {
    for (const component of [...CORE_COMPONENTS, "karmada-descheduler"]) {
      expect(objects.get(`Deployment/karmada-system/${component}`)).toBeDefined();
    }
    expect(objects.get("Service/karmada-system/karmada-apiserver")?.inputs.spec.type).toBe("LoadBalancer");
    expect(objects.get("Deployment/karmada-system/karmada-search")).toBeUndefined();
    expect(objects.get("StatefulSet/karmada-system/etcd")?.inputs.spec.replicas).toBe(3);
  });

  it("registers the objects inside karmada-apiserver through the Karmada provider", () => {
    const provider = find(records, "pulumi:providers:kubernetes", "karmada-karmada");
    const inside = [
      "Namespace//karmada-system",
      "Namespace//karmada-cluster",
      "MutatingWebhookConfiguration//mutating-config",
      "ValidatingWebhookConfiguration//validating-config",
      "APIService//v1alpha1.cluster.karmada.io",
      "ConfigMap/kube-public/cluster-info",
      "ClusterRole//karmada-view",
      "ClusterRole//karmada-edit",
    ];
    for (const key of inside) {
      const obj = objects.get(key);
      expect(obj).toBeDefined();
      expect(obj!.provider).toContain(provider.urn);
    }
    expect(records.filter(isCrd).length).toBeGreaterThan(0);
    for (const crd of records.filter(isCrd)) expect(crd.provider).toContain(provider.urn);
  });

  it("orders the install as real dependencies: certs → etcd → apiserver → CRDs/APIs/webhooks → controllers", () => {
    const urns = byUrn(records);
    const deps = (r: Registration) => r.dependencies.map((u) => urns.get(u)!).filter(Boolean);
    const apiserver = objects.get("Deployment/karmada-system/karmada-apiserver")!;
    // dependsOn a component waits for all its children: the etcd StatefulSet must be among them
    expect(deps(apiserver)).toContain(objects.get("StatefulSet/karmada-system/etcd"));
    expect(deps(apiserver).filter((d) => d.type === "kubernetes:core/v1:Secret").length).toBeGreaterThan(3);
    const aggregated = objects.get("Deployment/karmada-system/karmada-aggregated-apiserver")!;
    expect(deps(aggregated)).toContain(apiserver);
    const provider = find(records, "pulumi:providers:kubernetes", "karmada-karmada");
    expect(deps(provider)).toContain(apiserver);
    for (const crd of records.filter(isCrd)) {
      expect(deps(crd).map((d) => d.inputs.metadata?.name)).toContain("karmada-system");
    }
    const webhook = objects.get("ValidatingWebhookConfiguration//validating-config")!;
    expect(deps(webhook).filter(isCrd).length).toBe(records.filter(isCrd).length);
    const apiService = objects.get("APIService//v1alpha1.cluster.karmada.io")!;
    expect(deps(apiService)).toContain(aggregated);
    for (const controller of ["karmada-controller-manager", "karmada-scheduler", "kube-controller-manager"]) {
      const d = deps(objects.get(`Deployment/karmada-system/${controller}`)!);
      expect(d).toContain(apiService);
      expect(d).toContain(webhook);
      expect(d.filter(isCrd).length).toBe(records.filter(isCrd).length);
    }
  });

  it("signs every leaf with the right CA", () => {
    const signer = (leaf: string) =>
      find(records, "LocallySignedCert", `karmada-${leaf}-cert`).inputs.caCertPem;
    const caPem = (ca: string) =>
      find(records, "SelfSignedCert", ca).inputs &&
      `-----BEGIN CERTIFICATE-----\n${ca}\n-----END CERTIFICATE-----\n`;
    expect(signer("apiserver")).toBe(caPem("karmada-karmada-ca"));
    expect(signer("admin")).toBe(caPem("karmada-karmada-ca"));
    expect(signer("front-proxy-client")).toBe(caPem("karmada-front-proxy-ca"));
    expect(find(records, "LocallySignedCert", "etcd-etcd-client-cert").inputs.caCertPem).toBe(
      caPem("etcd-etcd-ca"),
    );
    expect(find(records, "LocallySignedCert", "etcd-etcd-server-cert").inputs.caCertPem).toBe(
      caPem("etcd-etcd-ca"),
    );
  });

  it("puts the external endpoint and user SANs into the apiserver certificate and the kubeconfig", async () => {
    const csr = find(records, "CertRequest", "karmada-apiserver-csr").inputs;
    expect(csr.dnsNames).toEqual(
      expect.arrayContaining(["karmada.example.com", "kubernetes.default.svc", "*.karmada-system.svc"]),
    );
    expect(csr.ipAddresses).toEqual(expect.arrayContaining(["127.0.0.1", "10.1.2.3", "10.96.0.1"]));
    expect(await valueOf(estate.controlPlane.adminKubeconfig)).toContain(
      "server: https://karmada.example.com:5443",
    );
  });

  it("never sends a private key, token or kubeconfig in plaintext", async () => {
    const leaks: string[] = [];
    const scan = (value: unknown, path: string, r: Registration) => {
      if (typeof value === "string") {
        if (
          /PRIVATE KEY|client-key-data/.test(value) &&
          !r.secretPaths.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`))
        ) {
          leaks.push(`${r.type} ${r.name} ${path}`);
        }
      } else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) scan(v, path ? `${path}.${k}` : k, r);
      }
    };
    for (const r of records) scan(r.inputs, "", r);
    expect(leaks).toEqual([]);
    const secretObjects = records.filter((r) => r.type === "kubernetes:core/v1:Secret");
    expect(secretObjects.length).toBeGreaterThan(5);
    for (const s of secretObjects) {
      for (const key of Object.keys(s.inputs.stringData)) {
        expect(s.secretPaths.some((p) => p === "stringData" || p === `stringData.${key}`)).toBe(true);
      }
      expect(s.additionalSecretOutputs).toEqual(expect.arrayContaining(["data", "stringData"]));
    }
    expect(await isSecret(estate.controlPlane.adminKubeconfig)).toBe(true);
    expect(await isSecret(estate.etcd.clientKeyPem)).toBe(true);
    expect(find(records, "pulumi:providers:kubernetes", "karmada-karmada").secretPaths).toContain(
      "kubeconfig",
    );
  });

  it("applies per-component overrides and merges global feature gates", () => {
    const scheduler = objects.get("Deployment/karmada-system/karmada-scheduler")!.inputs;
    expect(scheduler.spec.replicas).toBe(3);
    const container = scheduler.spec.template.spec.containers[0];
    expect([...(container.command ?? []), ...(container.args ?? [])]).toContain(
      "--feature-gates=Failover=true",
    );
  });

  it("keeps etcd data on delete: PVCs retained", () => {
    const sts = objects.get("StatefulSet/karmada-system/etcd")!.inputs;
    expect(sts.spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: "Retain",
      whenScaled: "Retain",
    });
  });
});

describe("registry rewriting", () => {
  it("rewrites every image of the estate to the private registry", async () => {
    const { records } = await buildEstate(
      {
        images: { registry: "registry.local:5000/mirror" },
        components: { search: { enabled: true }, metricsAdapter: { enabled: true } },
      },
      { inCluster: { replicas: 1, image: "registry.local:5000/mirror/etcd:3.5.21-0" } },
    );
    const images: string[] = [];
    const collect = (v: any): void => {
      if (v && typeof v === "object") {
        if (typeof v.image === "string") images.push(v.image);
        Object.values(v).forEach(collect);
      }
    };
    records.filter((r) => r.type.startsWith("kubernetes:apps/")).forEach((r) => collect(r.inputs));
    expect(images.length).toBeGreaterThanOrEqual(9);
    for (const image of images) expect(image.startsWith("registry.local:5000/mirror/")).toBe(true);
  });
});

describe("etcd data safety", () => {
  it("leaves the objects inside Karmada to etcd's data when the whole control plane goes, members' Clusters not", async () => {
    const { records, members } = await buildMemberEstate([
      { clusterName: "member1", mode: "Push", apiEndpoint: "https://member1.example.com:6443" },
    ]);
    const controlPlane = find(records, "karmada:index:KarmadaControlPlane", "karmada");
    const inKarmada = records.filter((r) => r.name.startsWith("karmada-in-karmada-"));
    const kinds = new Set(inKarmada.map((r) => r.type.split(":").pop()));
    for (const kind of ["Namespace", "CustomResourceDefinition", "ClusterRole", "APIService"]) {
      expect(kinds).toContain(kind);
    }
    for (const r of inKarmada)
      expect({ name: r.name, deletedWith: r.deletedWith }).toEqual({
        name: r.name,
        deletedWith: controlPlane.urn,
      });
    // unjoining is the Cluster object's deletion: it must still happen, as must every member-side delete
    const member = childrenOf(
      records,
      find(records, "karmada:index:MemberRegistration", members[0].clusterName),
    );
    expect(member.length).toBeGreaterThan(5);
    for (const r of member)
      expect({ name: r.name, deletedWith: r.deletedWith }).toEqual({ name: r.name, deletedWith: "" });
    // on kept or restored data the objects are already there: the Karmada provider adopts them
    const provider = find(records, "pulumi:providers:kubernetes", "karmada-karmada");
    expect(provider.inputs.upsertExistingObjects).toBe("true");
    // the previous run's field manager does not hold on to a field this run writes (a new CA)
    expect(provider.inputs.enablePatchForce).toBe("true");
  });

  it("keeps the namespace holding etcd data and the backup claim on destroy unless asked, and adopts kept ones", async () => {
    const kept = (await buildEstate({}, { inCluster: { replicas: 1, backup: {} } })).records;
    const keep = kubeObjects(kept);
    // the host namespace (created by the EtcdCluster), not karmada-system inside karmada-apiserver:
    // applied server-side (a Patch resource creates it or adopts the one a destroy kept), kept on delete,
    // and the same resource as the plain Namespace earlier releases created
    const namespace = find(kept, "core/v1:NamespacePatch", "etcd-namespace-karmada-system");
    expect(namespace.retainOnDelete).toBe(true);
    expect(namespace.aliasTypes).toEqual(["kubernetes:core/v1:Namespace"]);
    const claim = keep.get("PersistentVolumeClaim/karmada-system/etcd-backup")!;
    expect(claim.type).toBe("kubernetes:core/v1:PersistentVolumeClaimPatch");
    expect(claim.retainOnDelete).toBe(true);
    expect(claim.aliasTypes).toEqual(["kubernetes:core/v1:PersistentVolumeClaim"]);
    expect(keep.get("CronJob/karmada-system/etcd-backup")?.retainOnDelete).toBe(false);
    const wiped = (
      await buildEstate({}, { inCluster: { replicas: 1, backup: {}, deleteDataOnDestroy: true } })
    ).records;
    const wipe = kubeObjects(wiped);
    const plain = find(wiped, "kubernetes:core/v1:Namespace", "etcd-namespace-karmada-system");
    expect(plain.retainOnDelete).toBe(false);
    // switching deleteDataOnDestroy moves between the two types in place
    expect(plain.aliasTypes).toEqual(["kubernetes:core/v1:NamespacePatch"]);
    expect(wipe.get("PersistentVolumeClaim/karmada-system/etcd-backup")?.type).toBe(
      "kubernetes:core/v1:PersistentVolumeClaim",
    );
    expect(
      wipe.get("StatefulSet/karmada-system/etcd")?.inputs.spec.persistentVolumeClaimRetentionPolicy
        .whenDeleted,
    ).toBe("Delete");
  });

  it("protect: true protects every resource of the control plane", async () => {
    const { records } = await buildEstate({ protect: true });
    const children = records.filter((r) => r.urn.includes("KarmadaControlPlane$"));
    expect(children.length).toBeGreaterThan(30);
    expect(children.filter((r) => !r.protect).map((r) => r.name)).toEqual([]);
  });
});

describe("destroy order (containerized)", () => {
  it("makes every object members and addons create through the Karmada provider depend on the controller workloads", async () => {
    const estate = await buildMemberEstate([
      { clusterName: "push", mode: "Push", apiEndpoint: "https://push.example.com:6443" },
      { clusterName: "pull", mode: "Pull", apiEndpoint: "https://pull.example.com:6443" },
      {
        clusterName: "boot",
        mode: "Pull",
        apiEndpoint: "https://boot.example.com:6443",
        pull: { identity: "bootstrapToken" },
      },
    ]);
    const cp = estate.controlPlane;
    const addons = [
      new Addon("search", { kind: "search", controlPlane: cp, etcd: estate.etcd }),
      new Addon("policies", {
        kind: "manifests",
        controlPlane: cp,
        manifests: {
          yaml: [
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}",
            "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: apps}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: apps}\nstringData: {k: v}",
          ].join("\n---\n"),
        },
      }),
      new Addon("chart", {
        kind: "helm",
        controlPlane: cp,
        helm: { chart: "c", repo: "https://charts.example" },
      }),
    ];
    await settle(...addons, ...addons.flatMap((a) => a.resources));
    const { records } = estate;
    const urns = byUrn(records);
    const objects = kubeObjects(records);

    // the controllers: what runs garbage collection, finalizers and admission inside Karmada
    const controllers = await Promise.all(cp.controllers.map((r) => valueOf(r.urn)));
    for (const workload of ["kube-controller-manager", "karmada-controller-manager", "karmada-webhook"]) {
      expect(controllers).toContain(objects.get(`Deployment/karmada-system/${workload}`)!.urn);
    }
    expect(new Set(await Promise.all((await cp.controllersReady).map((r) => valueOf(r.urn))))).toEqual(
      new Set(controllers),
    );
    const ready = await Promise.all((await cp.karmadaObjectsReady).map((r) => valueOf(r.urn)));
    const clusterApi = await Promise.all(cp.clusterApiReady.map((r) => valueOf(r.urn)));
    expect(ready).toEqual(expect.arrayContaining(controllers));
    expect(clusterApi).toEqual(expect.arrayContaining(controllers));

    // every Kubernetes object of a member or addon that is not on a member or the host cluster
    const host = find(records, "pulumi:providers:kubernetes", "host");
    const memberProviders = records.filter((r) => r.name.startsWith("member-")).map((r) => r.urn);
    const onOtherCluster = (r: Registration) =>
      [host.urn, ...memberProviders].some((p) => r.provider.startsWith(`${p}::`));
    const owners = records.filter(
      (r) => r.type === "karmada:index:MemberRegistration" || r.type === "karmada:index:Addon",
    );
    const inKarmada = owners
      .flatMap((owner) => childrenOf(records, owner))
      .filter((r) => r.type.startsWith("kubernetes:") && !onOtherCluster(r));
    const kinds = new Set(inKarmada.map((r) => `${urns.get(r.parentUrn)?.name}/${r.inputs.kind ?? r.type}`));
    // Cluster (both modes, also through the adopting provider), credential Secrets, agent RBAC, bootstrap
    // token and CSR, addon APIService, manifests and chart
    for (const expected of [
      "push/Cluster",
      "pull/Cluster",
      "push/Secret",
      "pull/ClusterRole",
      "pull/Namespace",
      "boot/CertificateSigningRequest",
      "search/APIService",
      "policies/PropagationPolicy",
      "policies/Secret",
      "chart/kubernetes:helm.sh/v4:Chart",
    ]) {
      expect(kinds).toContain(expected);
    }
    const missing = inKarmada.flatMap((r) =>
      controllers.filter((c) => !r.dependencies.includes(c)).map((c) => `${r.name} → ${urns.get(c)!.name}`),
    );
    expect(missing).toEqual([]);
  });
});
