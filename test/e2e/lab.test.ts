/**
 * The lab itself (devkit/lab), on a small one of its own (10.235.0.0/16, apart from the local estate's 10.233: one cluster, two nodes): nodes
 * Ready on real kubelets and containerd; a pod on each node pulls from the lab registry, resolves a
 * Service by name through CoreDNS, reaches a Service's ClusterIP on the other node and its NodePort from
 * this machine; a claim binds to a node-local volume and keeps what was written. Then `stopLab` leaves
 * nothing behind: no process, mount, cgroup, network namespace (their nftables tables, veths and routes
 * go with them) or link on this machine.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as http from "http";
import { adminCredentials } from "../../devkit/lab/controlPlane";
import { Lab, applyObjects, labLeftovers, startLab, stopLab } from "../../devkit/lab/lab";
import { LabPlan, clusterOf, planLab } from "../../devkit/lab/plan";
import { processesIn } from "../../devkit/lab/cgroups";
import { ApiCredentials, apiGet, waitFor } from "../../devkit/kube";
import { e2eTier } from "../../devkit/engine";
import { LAB_NEEDS } from "../../devkit/lab/useLab";

jest.setTimeout(15 * 60_000);

const tier = e2eTier("the lab of real nodes (test/e2e/lab.test.ts)", { binaries: LAB_NEEDS.binaries });

const NODE_PORT = 30080;

/** A busybox pod on `node` running `script`. */
const pod = (
  name: string,
  node: string,
  image: string,
  script: string,
  extra: Record<string, unknown> = {},
) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default", labels: { app: name } },
  spec: {
    nodeSelector: { "kubernetes.io/hostname": node },
    restartPolicy: "Never",
    containers: [{ name, image, command: ["sh", "-c", script], ...extra }],
  },
});

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { timeout: 3000 }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
}

tier.describe("a lab of real nodes", () => {
  let lab: Lab;
  let plan: LabPlan;
  let creds: ApiCredentials;

  const podPhase = async (name: string) =>
    (await apiGet(creds, `/api/v1/namespaces/default/pods/${name}`)).status.phase as string;
  const logs = async (name: string) =>
    (await apiGet(creds, `/api/v1/namespaces/default/pods/${name}/log`)) as string;

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-lab-"));
    lab = await startLab({ name: "labtest", octet: 235, dir, clusters: [{ name: "one", nodes: 2 }] });
    plan = lab.plan;
    creds = adminCredentials(clusterOf(plan, "one"));
  });

  afterAll(async () => {
    if (plan) await stopLab(plan).catch(() => undefined);
  });

  test("both nodes Ready, on their own addresses, running containerd and the pinned kubelet", async () => {
    const nodes = (await apiGet(creds, "/api/v1/nodes")).items as any[];
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual(["one-n1", "one-n2"]);
    for (const n of nodes) {
      expect(n.status.conditions.find((c: any) => c.type === "Ready").status).toBe("True");
      expect(n.status.addresses.find((a: any) => a.type === "InternalIP").address).toMatch(
        /^10\.235\.0\.1[12]$/,
      );
      expect(n.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
      expect(n.status.nodeInfo.kubeletVersion).toMatch(/^v1\.\d+\.\d+$/);
    }
  });

  test("pods pull from the lab registry, resolve Services through CoreDNS and reach them across nodes and from this machine", async () => {
    const busybox = lab.image("busybox");
    const server = pod(
      "web",
      "one-n1",
      busybox,
      "mkdir -p /tmp/w && echo hello-lab > /tmp/w/index.html && exec httpd -f -p 8080 -h /tmp/w",
      {
        readinessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 1 },
      },
    );
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: {
        type: "NodePort",
        selector: { app: "web" },
        ports: [{ port: 80, targetPort: 8080, nodePort: NODE_PORT }],
      },
    };
    applyObjects(clusterOf(plan, "one"), [server, service]);
    await waitFor("the web pod Running", async () => (await podPhase("web")) === "Running", 120_000, 1000);
    // a client on the other node, by the Service's DNS name (CoreDNS) and ClusterIP (kube-proxy, nftables)
    const client = pod(
      "client",
      "one-n2",
      busybox,
      // busybox's own resolver (nslookup), then plain TCP to the address: the static busybox's wget and
      // nc go through glibc's resolver, which a static binary cannot load
      [
        "ip=$(nslookup web.default.svc.cluster.local | awk '/^Address: / { a = $2 } END { print a }')",
        'echo "resolved $ip"',
        "for i in 1 2 3 4 5 6 7 8 9 10; do",
        '  printf "GET / HTTP/1.0\\r\\n\\r\\n" | nc -w 2 "$ip" 80 | grep hello-lab && exit 0',
        "  sleep 1",
        "done",
        "exit 1",
      ].join("\n"),
    );
    applyObjects(clusterOf(plan, "one"), [client]);
    await waitFor(
      "the client done",
      async () => ["Succeeded", "Failed"].includes(await podPhase("client")),
      120_000,
      1000,
    );
    const out = await logs("client");
    expect(out).toMatch(/resolved 10\.96\.\d+\.\d+/);
    expect(out).toContain("hello-lab");
    expect(await podPhase("client")).toBe("Succeeded");
    // the NodePort on either node's address, from this machine's namespace
    for (const node of clusterOf(plan, "one").nodes) {
      await waitFor(
        `NodePort on ${node.address}`,
        async () => (await httpGet(`http://${node.address}:${NODE_PORT}/`)).includes("hello-lab"),
        30_000,
      );
    }
  });

  test("a claim binds on the consuming pod's node (local-path) and keeps what was written", async () => {
    const claim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data", namespace: "default" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "64Mi" } } },
    };
    const writer = {
      ...pod("writer", "one-n2", lab.image("busybox"), "echo kept > /data/file && cat /data/file"),
    };
    (writer.spec as any).containers[0].volumeMounts = [{ name: "data", mountPath: "/data" }];
    (writer.spec as any).volumes = [{ name: "data", persistentVolumeClaim: { claimName: "data" } }];
    applyObjects(clusterOf(plan, "one"), [claim, writer]);
    await waitFor("the writer done", async () => (await podPhase("writer")) === "Succeeded", 120_000, 1000);
    const bound = await apiGet(creds, "/api/v1/namespaces/default/persistentvolumeclaims/data");
    expect(bound.status.phase).toBe("Bound");
    expect(bound.spec.storageClassName).toBe("local-path");
    const volume = await apiGet(creds, `/api/v1/persistentvolumes/${bound.spec.volumeName}`);
    const hostPath: string = volume.spec.hostPath?.path ?? volume.spec.local?.path;
    // the volume lives in the node's own directory, as the provisioner was told
    expect(hostPath.startsWith(clusterOf(plan, "one").nodes[1].dir)).toBe(true);
    expect(fs.readFileSync(path.join(hostPath, "file"), "utf8")).toBe("kept\n");
  });

  test("stopLab leaves nothing: no process, mount, cgroup, namespace or link", async () => {
    expect(processesIn(plan.cgroup).length).toBeGreaterThan(5);
    await stopLab(plan);
    expect(labLeftovers(plan)).toEqual([]);
    expect(fs.existsSync(plan.dir)).toBe(false);
    // every node's namespace is gone, with its nftables tables and pods' namespaces
    expect(fs.readdirSync("/run/netns").filter((n) => n.startsWith(plan.netns))).toEqual([]);
    expect(
      planLab({ name: "labtest", octet: 235, dir: plan.dir, clusters: [{ name: "one", nodes: 2 }] }).cgroup,
    ).toBe(plan.cgroup);
  });
});
