import { DEFAULT_KARMADA_VERSION, findRelease, resolveImage } from "../../../../lib/catalog";
import { EtcdInClusterArgs } from "../../../../lib/etcd/config";
import { resolveEtcdInClusterSettings } from "../../../../lib/etcd/resolve";
import { ConfigError } from "../../../../lib/validation/errors";

const resolve = (args: Partial<EtcdInClusterArgs> = {}) =>
  resolveEtcdInClusterSettings({ namespace: "karmada-system", ...args } as EtcdInClusterArgs);

/** The ConfigError `fn` throws (fails the test if it throws something else or nothing). */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveEtcdInClusterSettings defaults", () => {
  const s = resolve();

  it("is a single member named etcd with the catalog image", () => {
    expect(s.name).toBe("etcd");
    expect(s.replicas).toBe(1);
    expect(s.clusterDomain).toBe("cluster.local");
    expect(s.image).toBe(resolveImage("etcd", findRelease(DEFAULT_KARMADA_VERSION)));
  });

  it("keeps data on an 8Gi PersistentVolumeClaim that survives destroy", () => {
    expect(s.storage).toEqual({ kind: "pvc", size: "8Gi" });
    expect(s.deleteDataOnDestroy).toBe(false);
  });

  it("limits the backend to 8 GiB and awaits workloads", () => {
    expect(s.quotaBackendBytes).toBe(8 * 2 ** 30);
    expect(s.awaitWorkloads).toBe(true);
  });

  it("has no backup unless asked, and fills in the backup defaults when asked", () => {
    expect(s.backup).toBeUndefined();
    const backup = resolve({ backup: {} }).backup!;
    expect(backup.target).toEqual({ kind: "pvc", size: "20Gi" });
    expect(backup.retain).toBeGreaterThan(0);
    expect(backup.schedule.split(" ")).toHaveLength(5);
  });

  it("keeps explicit choices", () => {
    const custom = resolve({
      name: "karmada-etcd",
      replicas: 3,
      storage: { storageClassName: "fast-ssd" },
      quotaBackendBytes: "4Gi",
      deleteDataOnDestroy: true,
    });
    expect(custom.storage).toEqual({ kind: "pvc", size: "8Gi", storageClassName: "fast-ssd" });
    expect(custom.quotaBackendBytes).toBe(4 * 2 ** 30);
    expect(custom.deleteDataOnDestroy).toBe(true);
    expect(resolve({ storage: { kind: "emptyDir" } }).storage).toEqual({ kind: "emptyDir" });
    expect(resolve({ storage: { kind: "hostPath", path: "/var/lib/karmada-etcd" } }).storage.kind).toBe(
      "hostPath",
    );
  });
});

describe("resolveEtcdInClusterSettings errors", () => {
  it.each([2, 4, 6])("refuses an even member count (%d)", (replicas) => {
    const e = configError(() => resolve({ replicas }));
    expect(e.field).toBe("etcd.replicas");
    expect(e.message).toMatch(/even member count/);
    expect(e.allowed).toBe("1, 3, 5");
  });

  it.each([0, -1, 1.5, 7])("refuses %d members", (replicas) => {
    const e = configError(() => resolve({ replicas }));
    expect(e.field).toBe("etcd.replicas");
    expect(e.allowed).toBe("1, 3, 5");
  });

  it("refuses hostPath storage with more than one member", () => {
    const e = configError(() => resolve({ replicas: 3, storage: { kind: "hostPath", path: "/data/etcd" } }));
    expect(e.field).toBe("etcd.storage.kind");
    expect(e.message).toMatch(/hostPath storage holds a single member, but replicas is 3/);
  });

  it.each([
    [{ name: "Etcd" }, "etcd.name"],
    [{ name: "e".repeat(46) }, "etcd.name"],
    [{ namespace: "kube_system" }, "etcd.namespace"],
    [{ clusterDomain: "-bad-" }, "etcd.clusterDomain"],
    [{ image: " " }, "etcd.image"],
    [{ imagePullPolicy: "Sometimes" }, "etcd.imagePullPolicy"],
    [{ storage: { kind: "nfs" } }, "etcd.storage.kind"],
    [{ storage: { size: "lots" } }, "etcd.storage.size"],
    [{ storage: { size: "0" } }, "etcd.storage.size"],
    [{ storage: { storageClassName: "Fast SSD" } }, "etcd.storage.storageClassName"],
    [{ storage: { kind: "hostPath", path: "relative/dir" } }, "etcd.storage.path"],
    [{ storage: { kind: "hostPath", path: "/var/../etc" } }, "etcd.storage.path"],
    [
      { resources: { requests: { memory: "1Gi" }, limits: { memory: "512Mi" } } },
      "etcd.resources.requests.memory",
    ],
    [{ labels: { "bad key!": "x" } }, 'etcd.labels["bad key!"]'],
    [{ priorityClassName: "Not_Valid" }, "etcd.priorityClassName"],
    [{ extraArgs: { "--heartbeat-interval": "100" } }, 'etcd.extraArgs["--heartbeat-interval"]'],
    [{ quotaBackendBytes: "a lot" }, "etcd.quotaBackendBytes"],
    [{ quotaBackendBytes: 0 }, "etcd.quotaBackendBytes"],
    [{ backup: { schedule: "every hour" } }, "etcd.backup.schedule"],
    [{ backup: { retain: 0 } }, "etcd.backup.retain"],
    [{ backup: { toolsImage: "" } }, "etcd.backup.toolsImage"],
    [{ backup: { target: { size: "-1Gi" } } }, "etcd.backup.target.size"],
    [{ backup: { target: { existingClaim: "Backups!" } } }, "etcd.backup.target.existingClaim"],
    [{ backup: { target: { kind: "hostPath", path: "backups" } } }, "etcd.backup.target.path"],
    [{ backup: { target: { kind: "s3" } } }, "etcd.backup.target.kind"],
  ] as [Partial<EtcdInClusterArgs>, string][])("%j → error on %s", (args, field) => {
    const e = configError(() => resolve(args));
    expect(e.field).toBe(field);
    expect(e.message).toContain(`invalid ${field}:`);
  });

  it("names the caller's field prefix", () => {
    const e = configError(() => resolveEtcdInClusterSettings({ namespace: "ns", replicas: 2 }, "spec.etcd"));
    expect(e.field).toBe("spec.etcd.replicas");
  });
});
