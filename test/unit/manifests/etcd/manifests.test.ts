import { EtcdInClusterArgs } from "../../../../lib/etcd/config";
import { resolveEtcdInClusterSettings } from "../../../../lib/etcd/resolve";
import type { KubeObject } from "../../../../lib/kube/apply";
import {
  BOOTSTRAP_KEY,
  ENTRYPOINT_FLAGS,
  MEMBERSHIP_SCRIPT,
  MEMBER_ENTRYPOINT_SCRIPT,
  MEMBER_ENV,
  ETCD_CERT_SECRET_KEYS,
  ETCD_PKI_DIR,
  etcdClientServiceUrl,
  etcdInClusterManifests,
  etcdInClusterPlacement,
  etcdMemberAddresses,
  etcdMemberClientUrls,
} from "../../../../lib/manifests/etcd";
import { SKIP_AWAIT_ANNOTATION } from "../../../../lib/manifests/workloads";
import { etcdServerSans } from "../../../../lib/pki/sans";
import { KubernetesSchema, describeWithSchema, kubernetesSchema } from "../../../support/openapi";

const settingsOf = (args: Partial<EtcdInClusterArgs> = {}) =>
  resolveEtcdInClusterSettings({ namespace: "karmada-system", ...args } as EtcdInClusterArgs);
const manifests = (args: Partial<EtcdInClusterArgs> = {}) => etcdInClusterManifests(settingsOf(args));
const objects = (args: Partial<EtcdInClusterArgs> = {}) => Object.values(manifests(args)).flat();
const byKind = (objs: KubeObject[], kind: string) => objs.filter((o) => o.kind === kind) as any[];
const statefulSet = (args: Partial<EtcdInClusterArgs> = {}) => byKind(objects(args), "StatefulSet")[0];

/** Parses the member container's flags. */
function flags(args: Partial<EtcdInClusterArgs> = {}): Map<string, string> {
  const container = statefulSet(args).spec.template.spec.containers[0];
  return new Map(
    (container.args as string[]).map((f) => {
      const [, name, value] = /^--([^=]+)=(.*)$/.exec(f)!;
      return [name, value];
    }),
  );
}

/** The member container's environment as name → value. */
function env(args: Partial<EtcdInClusterArgs> = {}): Map<string, string> {
  const container = statefulSet(args).spec.template.spec.containers[0];
  return new Map((container.env as { name: string; value?: string }[]).map((e) => [e.name, e.value ?? ""]));
}

describe("etcd members", () => {
  it.each([1, 3, 5])(
    "%d members: the bootstrap record lists every pod by its headless-Service name",
    (replicas) => {
      const config = byKind(
        manifests({ replicas, name: "kv", clusterDomain: "corp.example" }).bootstrap,
        "ConfigMap",
      )[0];
      expect(config.metadata.name).toBe("kv-bootstrap");
      const members = (config.data[BOOTSTRAP_KEY] as string).split(",");
      expect(members).toHaveLength(replicas);
      members.forEach((member, i) => {
        expect(member).toBe(`kv-${i}=https://kv-${i}.kv.karmada-system.svc.corp.example:2380`);
      });
      expect(statefulSet({ replicas, name: "kv" }).spec.replicas).toBe(replicas);
    },
  );

  it("has one pod template for every replica count: scaling restarts no running member", () => {
    const template = (replicas: number) => statefulSet({ replicas, name: "kv" }).spec.template;
    expect(template(5)).toEqual(template(3));
    expect(template(1)).toEqual(template(3));
  });

  it("starts through the entrypoint, which adds the member's identity and membership flags last", () => {
    const container = statefulSet({ name: "kv" }).spec.template.spec.containers[0];
    expect(container.command).toEqual(["/bin/sh", "-c", MEMBER_ENTRYPOINT_SCRIPT, "etcd-member"]);
    for (const flag of ENTRYPOINT_FLAGS) expect(flags({ name: "kv" }).has(flag)).toBe(false);
    const e = env({ name: "kv", clusterDomain: "corp.example" });
    expect(e.get(MEMBER_ENV.peerUrl)).toBe("https://$(POD_NAME).kv.karmada-system.svc.corp.example:2380");
    expect(e.get(MEMBER_ENV.clusterUrl)).toBe("https://kv-client.karmada-system.svc.corp.example:2379");
    // etcdctl refuses a flag its environment also sets (operators exec etcdctl with flags here), and
    // etcd reads ETCD_* as its own flags
    expect([...e.keys()].filter((name) => /^ETCD(CTL)?_/.test(name))).toEqual([]);
    // the kubelet expands $(POD_NAME) only from variables defined before
    expect(container.env[0]).toEqual({
      name: "POD_NAME",
      valueFrom: { fieldRef: { fieldPath: "metadata.name" } },
    });
    const bootstrapMount = container.volumeMounts.find((m: any) => m.name === "bootstrap");
    expect(`${bootstrapMount.mountPath}/${BOOTSTRAP_KEY}`).toBe(e.get(MEMBER_ENV.bootstrapFile));
    const volume = statefulSet({ name: "kv" }).spec.template.spec.volumes.find(
      (v: any) => v.name === "bootstrap",
    );
    expect(volume.configMap.name).toBe("kv-bootstrap");
  });

  it("uses TLS with client-certificate authentication for clients and peers, https URLs everywhere", () => {
    const f = flags({ replicas: 3 });
    for (const name of ["listen-client-urls", "advertise-client-urls", "listen-peer-urls"]) {
      expect(f.get(name)).toMatch(/^https:\/\//);
    }
    expect(env({ replicas: 3 }).get(MEMBER_ENV.peerUrl)).toMatch(/^https:\/\//);
    expect(f.get("client-cert-auth")).toBe("true");
    expect(f.get("peer-client-cert-auth")).toBe("true");
    const pki = (key: keyof typeof ETCD_CERT_SECRET_KEYS) => `${ETCD_PKI_DIR}/${ETCD_CERT_SECRET_KEYS[key]}`;
    expect(f.get("cert-file")).toBe(pki("serverCert"));
    expect(f.get("key-file")).toBe(pki("serverKey"));
    expect(f.get("trusted-ca-file")).toBe(pki("ca"));
    expect(f.get("peer-cert-file")).toBe(pki("peerCert"));
    expect(f.get("peer-key-file")).toBe(pki("peerKey"));
    expect(f.get("peer-trusted-ca-file")).toBe(pki("ca"));
  });

  it("mounts the cert Secret <name>-cert with exactly the expected keys available", () => {
    const pod = statefulSet({ name: "kv" }).spec.template.spec;
    const volume = pod.volumes.find((v: any) => v.secret);
    expect(volume.secret.secretName).toBe("kv-cert");
    const mount = pod.containers[0].volumeMounts.find((m: any) => m.name === volume.name);
    expect(mount).toMatchObject({ mountPath: ETCD_PKI_DIR, readOnly: true });
  });

  it("sets the backend quota and lets extraArgs override generated flags", () => {
    const f = flags({
      quotaBackendBytes: "2Gi",
      extraArgs: { "snapshot-count": "5000", "heartbeat-interval": "250" },
    });
    expect(f.get("quota-backend-bytes")).toBe(String(2 * 2 ** 30));
    expect(f.get("snapshot-count")).toBe("5000");
    expect(f.get("heartbeat-interval")).toBe("250");
  });

  it("serves health on the plain metrics port and probes /health there", () => {
    const container = statefulSet().spec.template.spec.containers[0];
    expect(flags().get("listen-metrics-urls")).toBe("http://0.0.0.0:2381");
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
      expect(probe.httpGet.port).toBe(2381);
      expect(probe.httpGet.scheme).toBe("HTTP");
      expect(probe.httpGet.path).toMatch(/^\/health(\?|$)/);
    }
    // readiness needs the cluster's quorum; liveness only the local member
    expect(container.readinessProbe.httpGet.path).toBe("/health");
    expect(container.livenessProbe.httpGet.path).toContain("serializable=true");
  });

  it("starts members in parallel and requires them on different nodes", () => {
    const sts = statefulSet({ replicas: 3 });
    expect(sts.spec.podManagementPolicy).toBe("Parallel");
    const term =
      sts.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
    expect(term.topologyKey).toBe("kubernetes.io/hostname");
    expect(term.labelSelector.matchLabels).toEqual(sts.spec.selector.matchLabels);
    expect(sts.spec.template.metadata.labels).toMatchObject(sts.spec.selector.matchLabels);
  });
});

describe("etcd storage", () => {
  it("defaults to a PVC template whose data is retained on delete and on scale-in", () => {
    const sts = statefulSet();
    expect(sts.spec.volumeClaimTemplates).toHaveLength(1);
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe("8Gi");
    expect(sts.spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: "Retain",
      whenScaled: "Retain",
    });
    expect(sts.spec.template.spec.volumes.some((v: any) => v.emptyDir)).toBe(false);
  });

  it("deletes claims with the StatefulSet only when deleteDataOnDestroy is set", () => {
    expect(statefulSet({ deleteDataOnDestroy: true }).spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: "Delete",
      whenScaled: "Retain",
    });
  });

  it("uses the requested storage class and size", () => {
    const claim = statefulSet({ storage: { storageClassName: "fast-ssd", size: "20Gi" } }).spec
      .volumeClaimTemplates[0];
    expect(claim.spec.storageClassName).toBe("fast-ssd");
    expect(claim.spec.resources.requests.storage).toBe("20Gi");
  });

  it("uses emptyDir only when asked", () => {
    const sts = statefulSet({ storage: { kind: "emptyDir" } });
    expect(sts.spec.volumeClaimTemplates).toBeUndefined();
    expect(sts.spec.template.spec.volumes.filter((v: any) => v.emptyDir)).toHaveLength(1);
  });

  it("uses a hostPath directory, running as root since Kubernetes does not chown it", () => {
    const pod = statefulSet({ storage: { kind: "hostPath", path: "/var/lib/karmada-etcd" } }).spec.template
      .spec;
    expect(pod.volumes.find((v: any) => v.hostPath).hostPath).toEqual({
      path: "/var/lib/karmada-etcd",
      type: "DirectoryOrCreate",
    });
    expect(pod.securityContext.runAsUser).toBe(0);
    expect(statefulSet().spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });
});

describe("etcd Services and disruption budget", () => {
  it("publishes not-ready members on the headless Service and serves clients on <name>-client", () => {
    const services = byKind(objects({ name: "kv" }), "Service");
    const headless = services.find((s) => s.metadata.name === "kv");
    const client = services.find((s) => s.metadata.name === "kv-client");
    expect(headless.spec.clusterIP).toBe("None");
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    expect(headless.spec.ports.map((p: any) => [p.name, p.port])).toEqual([
      ["client", 2379],
      ["peer", 2380],
    ]);
    expect(client.spec.ports.map((p: any) => [p.name, p.port])).toEqual([["client", 2379]]);
    expect(client.spec.publishNotReadyAddresses).toBeUndefined();
    expect(statefulSet({ name: "kv" }).spec.serviceName).toBe("kv");
  });

  it.each([
    [1, undefined],
    [3, 1],
    [5, 1],
  ])("%d members → PodDisruptionBudget maxUnavailable %s", (replicas, maxUnavailable) => {
    const pdbs = byKind(objects({ replicas }), "PodDisruptionBudget");
    expect(pdbs[0]?.spec.maxUnavailable).toBe(maxUnavailable);
  });

  it("produces no Secret and marks everything skip-await only in the test bed", () => {
    const args = { replicas: 3, backup: {} };
    expect(byKind(objects(args), "Secret")).toEqual([]);
    for (const obj of objects({ ...args, awaitWorkloads: false }) as any[]) {
      expect(obj.metadata.annotations[SKIP_AWAIT_ANNOTATION]).toBe("true");
    }
    const awaited = objects(args).filter((o: any) => o.metadata.annotations?.[SKIP_AWAIT_ANNOTATION]);
    // The backup claim is never awaited: it binds only when the first backup job runs.
    expect(awaited.map((o) => o.kind)).toEqual(["PersistentVolumeClaim"]);
  });
});

describe("etcd addresses for clients and certificates", () => {
  const settings = settingsOf({ name: "kv", replicas: 3, clusterDomain: "corp.example" });

  it("gives the client Service URL and every member's client URL", () => {
    expect(etcdClientServiceUrl(settings)).toBe("https://kv-client.karmada-system.svc.corp.example:2379");
    expect(etcdMemberClientUrls(settings)).toHaveLength(3);
  });

  it("lets the PKI code cover every name a client or peer dials, for any replica count", () => {
    // as the EtcdCluster issues them: no per-member names, the headless Service wildcard
    const sans = etcdServerSans({ members: [], inCluster: etcdInClusterPlacement(settings) });
    const five = settingsOf({ name: "kv", replicas: 5, clusterDomain: "corp.example" });
    const dialed = [
      new URL(etcdClientServiceUrl(settings)).hostname,
      ...etcdMemberClientUrls(five).map((u) => new URL(u).hostname),
      ...(byKind(etcdInClusterManifests(five).bootstrap, "ConfigMap")[0].data[BOOTSTRAP_KEY] as string)
        .split(",")
        .map((m) => new URL(m.split("=")[1]).hostname),
      ...etcdMemberAddresses(five).flatMap((m) => m.addresses),
    ];
    const covered = (host: string) =>
      sans.dnsNames.some(
        (san) =>
          san === host || (san.startsWith("*.") && host.split(".").slice(1).join(".") === san.slice(2)),
      );
    expect(dialed).toHaveLength(1 + 5 + 5 + 10);
    expect(dialed.filter((host) => !covered(host))).toEqual([]);
  });
});

describe("etcd membership job", () => {
  const job = (args: Partial<EtcdInClusterArgs>) => byKind(manifests(args).membership, "Job")[0];
  const keep = (args: Partial<EtcdInClusterArgs>) =>
    job(args).spec.template.spec.containers[0].env.find((e: any) => e.name === "KEEP_PEER_URLS").value;

  it("keeps exactly the replicas' peer URLs, so a replica change replaces the job", () => {
    expect(job({ name: "kv" }).metadata.name).toBe("kv-members");
    expect(keep({ name: "kv", replicas: 3 }).split(" ")).toEqual(
      [0, 1, 2].map((i) => `https://kv-${i}.kv.karmada-system.svc.cluster.local:2380`),
    );
    expect(keep({ name: "kv", replicas: 5 }).split(" ")).toHaveLength(5);
    expect(job({ name: "kv", replicas: 5 })).not.toEqual(job({ name: "kv", replicas: 3 }));
  });

  it("runs the membership script in the etcd image with the member certificates", () => {
    const pod = job({ name: "kv", image: "registry.example/etcd:3.5.21-0" }).spec.template.spec;
    expect(pod.containers[0].image).toBe("registry.example/etcd:3.5.21-0");
    expect(pod.containers[0].command).toEqual(["/bin/sh", "-c", MEMBERSHIP_SCRIPT]);
    expect(pod.volumes).toContainEqual({
      name: "pki",
      secret: expect.objectContaining({ secretName: "kv-cert" }),
    });
    expect(pod.restartPolicy).toBe("Never");
  });
});

describe("etcd backup", () => {
  it("is absent unless configured", () => {
    expect(manifests().backup).toEqual([]);
  });

  it("snapshots through the client Service into its own claim on schedule", () => {
    const { backup } = manifests({ name: "kv", backup: { schedule: "15 3 * * *", retain: 5 } });
    const [claim] = byKind(backup, "PersistentVolumeClaim");
    const [cron] = byKind(backup, "CronJob");
    expect(claim.metadata.name).toBe("kv-backup");
    expect(cron.spec.schedule).toBe("15 3 * * *");
    expect(cron.spec.concurrencyPolicy).toBe("Forbid");
    const pod = cron.spec.jobTemplate.spec.template.spec;
    expect(pod.volumes.find((v: any) => v.persistentVolumeClaim).persistentVolumeClaim.claimName).toBe(
      "kv-backup",
    );
    expect(pod.volumes.find((v: any) => v.secret).secret.secretName).toBe("kv-cert");
    const env = Object.fromEntries(pod.initContainers[0].env.map((e: any) => [e.name, e.value]));
    expect(env.ETCDCTL_ENDPOINTS).toBe("https://kv-client.karmada-system.svc.cluster.local:2379");
    const storeEnv = Object.fromEntries(pod.containers[0].env.map((e: any) => [e.name, e.value]));
    expect(storeEnv.RETAIN).toBe("5");
  });

  it("writes to an existing claim or a node directory without creating a claim", () => {
    const existing = manifests({ backup: { target: { existingClaim: "nas" } } }).backup;
    expect(byKind(existing, "PersistentVolumeClaim")).toEqual([]);
    const pod = byKind(existing, "CronJob")[0].spec.jobTemplate.spec.template.spec;
    expect(pod.volumes.find((v: any) => v.persistentVolumeClaim).persistentVolumeClaim.claimName).toBe("nas");

    const host = manifests({
      backup: { target: { kind: "hostPath", path: "/srv/etcd-backups", nodeName: "node-1" } },
    });
    const hostPod = byKind(host.backup, "CronJob")[0].spec.jobTemplate.spec.template.spec;
    expect(hostPod.nodeName).toBe("node-1");
    expect(hostPod.volumes.find((v: any) => v.hostPath).hostPath.path).toBe("/srv/etcd-backups");
  });
  it.each(["backup", "members"])(
    "%s pods are selected by none of the members' selectors (Services, PodDisruptionBudget, StatefulSet)",
    (job) => {
      const all = manifests({ name: "kv", replicas: 3, backup: {} });
      const podLabels: Record<string, string> =
        job === "backup"
          ? byKind(all.backup, "CronJob")[0].spec.jobTemplate.spec.template.metadata.labels
          : byKind(all.membership, "Job")[0].spec.template.metadata.labels;
      const selectors = Object.values(all)
        .flat()
        .map((o: any) => (o.kind === "Service" ? o.spec.selector : o.spec?.selector?.matchLabels))
        .filter((selector): selector is Record<string, string> => selector !== undefined);
      // the client and headless Services, the PDB and the StatefulSet
      expect(selectors.length).toBeGreaterThanOrEqual(4);
      const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
        Object.entries(selector).every(([key, value]) => labels[key] === value);
      const memberLabels = statefulSet({ name: "kv", replicas: 3, backup: {} }).spec.template.metadata.labels;
      for (const selector of selectors) {
        expect(selects(selector, memberLabels)).toBe(true);
        expect(selects(selector, podLabels)).toBe(false);
      }
      expect(podLabels["app.kubernetes.io/instance"]).toBe("kv");
      expect(podLabels["app.kubernetes.io/component"]).toBe(job);
    },
  );
});

describeWithSchema("etcd objects validate against the Kubernetes OpenAPI schema", () => {
  let schema: KubernetesSchema;
  beforeAll(() => (schema = kubernetesSchema()));
  it.each([
    ["defaults", {}],
    [
      "three members, tuned",
      {
        replicas: 3,
        resources: { requests: { cpu: "1", memory: "2Gi" } },
        labels: { a: "b" },
        annotations: { "x/y": "z" },
      },
    ],
    [
      "five members, claim backup",
      {
        replicas: 5,
        storage: { storageClassName: "ssd", size: "50Gi" },
        backup: {},
        deleteDataOnDestroy: true,
      },
    ],
    ["emptyDir, test bed", { storage: { kind: "emptyDir" }, awaitWorkloads: false, priorityClassName: "" }],
    [
      "hostPath with hostPath backups",
      {
        storage: { kind: "hostPath", path: "/var/lib/etcd-k" },
        backup: { target: { kind: "hostPath", path: "/srv/b", nodeName: "n1" } },
      },
    ],
  ] as [string, Partial<EtcdInClusterArgs>][])("%s", (_, args) => {
    const objs = objects(args);
    expect(objs.length).toBeGreaterThan(0);
    expect(schema.problemsOfAll(objs)).toEqual([]);
  });
});
