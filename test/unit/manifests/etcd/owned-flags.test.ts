import { ETCD_OWNED_FLAGS } from "../../../../lib/etcd/flags-owned";
import { EtcdInClusterArgs } from "../../../../lib/etcd/config";
import { resolveEtcdInClusterSettings } from "../../../../lib/etcd/resolve";
import { etcdFlags } from "../../../../lib/manifests/etcd/flags";
import { ENTRYPOINT_FLAGS } from "../../../../lib/manifests/etcd/memberEntrypoint";
import { configError } from "../../validation/config-error";

const resolve = (args: Partial<EtcdInClusterArgs>) =>
  resolveEtcdInClusterSettings({ namespace: "karmada-system", ...args } as EtcdInClusterArgs);

describe("in-cluster etcd owned flags", () => {
  test.each(Object.keys(ETCD_OWNED_FLAGS).map((f) => [f]))("refuses --%s in extraArgs", (flag) => {
    const error = configError(() => resolve({ extraArgs: { [flag]: "x" } }));
    expect(error.field).toBe(`etcd.extraArgs[${JSON.stringify(flag)}]`);
    expect(error.problem).toBe(`--${flag} is set by the EtcdCluster from ${ETCD_OWNED_FLAGS[flag]}`);
  });

  it("keeps client TLS: a plain-HTTP client listener is refused", () => {
    const error = configError(() => resolve({ extraArgs: { "listen-client-urls": "http://0.0.0.0:2379" } }));
    expect(error.problem).toMatch(/client TLS/);
  });

  it("owns only flags it generates (template or entrypoint), and leaves the tunables alone", () => {
    const settings = resolve({ extraArgs: { "heartbeat-interval": "250", "snapshot-count": "5000" } });
    const template = etcdFlags(settings).map((f) => f.slice(2, f.indexOf("=")));
    expect([...template, ...ENTRYPOINT_FLAGS]).toEqual(expect.arrayContaining(Object.keys(ETCD_OWNED_FLAGS)));
    // the entrypoint's flags come last on etcd's command line: the template must not set them too
    expect(template.filter((f) => (ENTRYPOINT_FLAGS as readonly string[]).includes(f))).toEqual([]);
    expect(template).toEqual(expect.arrayContaining(["heartbeat-interval", "snapshot-count"]));
  });
});
