/**
 * The loopback clusters the containerized e2e tests deploy to: real etcd + kube-apiserver +
 * kube-controller-manager processes on 127.0.0.0/8 addresses. Two run side by side (host and member
 * clusters of later tests), each with its own CA, and stopping one leaves no process behind.
 */
import * as fs from "fs";
import { ConfigError } from "../../lib/validation/errors";
import { e2eTier } from "../../devkit/engine/tier";
import {
  LoopbackCluster,
  apiGet,
  generateCa,
  isRunning,
  resolveClusterOptions,
  startCluster,
} from "../../devkit/kube";
import { callApi } from "../../lib/kube/rest";
import * as os from "os";
import * as path from "path";

jest.setTimeout(300_000);

describe("cluster options (no processes)", () => {
  const base = { name: "host", address: "127.0.2.10" };

  test("defaults: ports, controller manager on, service CIDR and its first address", () => {
    expect(resolveClusterOptions(base)).toMatchObject({
      ports: { apiServer: 6443, etcdClient: 2379, etcdPeer: 2380, controllerManager: 10257 },
      controllerManager: true,
      serviceCidr: "10.96.0.0/16",
      serviceIp: "10.96.0.1",
      readyTimeoutMs: 120_000,
    });
  });

  const bad: [string, object, string][] = [
    [
      "a non-loopback address",
      { address: "10.0.0.5" },
      'invalid address: "10.0.0.5" is not an IPv4 loopback address (allowed: 127.0.0.0/8, e.g. 127.0.2.10)',
    ],
    [
      "the wildcard address",
      { address: "0.0.0.0" },
      'invalid address: "0.0.0.0" is not an IPv4 loopback address',
    ],
    ["an IPv6 address", { address: "::1" }, 'invalid address: "::1" is not an IPv4 loopback address'],
    ["a name that is no DNS label", { name: "Host_1" }, "invalid name:"],
    ["a port out of range", { ports: { apiServer: 70000 } }, "invalid ports.apiServer: 70000 is not a port"],
    [
      "two processes on one port",
      { ports: { etcdPeer: 2379 } },
      "invalid ports.etcdPeer: 2379 is already ports.etcdClient",
    ],
    ["a service range with host bits", { serviceCidr: "10.96.0.1/16" }, "invalid serviceCidr:"],
    ["an IPv6 service range", { serviceCidr: "fd00::/112" }, 'invalid serviceCidr: "fd00::/112" is not IPv4'],
    [
      "a zero timeout",
      { readyTimeoutMs: 0 },
      "invalid readyTimeoutMs: 0 is not a positive number of milliseconds",
    ],
  ];
  test.each(bad)("%s is refused before anything starts", (_what, override, message) => {
    const options = { ...base, ...override };
    expect(() => resolveClusterOptions(options)).toThrow(ConfigError);
    expect(() => resolveClusterOptions(options)).toThrow(message);
  });
});

const tier = e2eTier("loopback clusters (test/e2e/containerized-clusters.test.ts)", {
  binaries: ["etcd", "kube-apiserver", "kube-controller-manager"],
});

tier.describe("loopback clusters (real etcd, kube-apiserver, kube-controller-manager)", () => {
  let a: LoopbackCluster | undefined;
  let b: LoopbackCluster | undefined;
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-ca-"));

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    fs.rmSync(caDir, { recursive: true, force: true });
  });

  test("two clusters start side by side on different loopback addresses and serve", async () => {
    const ca = generateCa(caDir, "brought-ca");
    [a, b] = await Promise.all([
      startCluster({ name: "alpha", address: "127.0.2.30" }),
      startCluster({ name: "beta", address: "127.0.2.31", ca }),
    ]);
    expect(a.server).toBe("https://127.0.2.30:6443");
    for (const cluster of [a, b]) {
      expect((await callApi(cluster.credentials, "GET", "/readyz")).status).toBe(200);
      const version = await apiGet(cluster.credentials, "/version");
      expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+/);
      expect(fs.statSync(cluster.kubeconfigPath).mode & 0o777).toBe(0o600);
      expect(cluster.kubeconfig).toContain(`server: ${cluster.server}`);
    }
    // the brought CA is the one the second cluster serves with and trusts
    expect(b.caCertPem).toBe(ca.certPem);
    expect(a.caCertPem).not.toBe(ca.certPem);
  });

  test("each cluster is its own store: an object created in one is absent from the other", async () => {
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "only-in-alpha" } };
    expect((await callApi(a!.credentials, "POST", "/api/v1/namespaces", ns)).status).toBe(201);
    expect((await callApi(a!.credentials, "GET", "/api/v1/namespaces/only-in-alpha")).status).toBe(200);
    expect((await callApi(b!.credentials, "GET", "/api/v1/namespaces/only-in-alpha")).status).toBe(404);
  });

  test("a client certificate from another cluster's CA is refused", async () => {
    const foreign = { ...a!.credentials, certPem: b!.credentials.certPem, keyPem: b!.credentials.keyPem };
    expect((await callApi(foreign, "GET", "/api/v1/namespaces")).status).toBe(401);
  });

  test("kube-controller-manager reconciles: a deleted namespace is finalized and goes away", async () => {
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "short-lived" } };
    await callApi(a!.credentials, "POST", "/api/v1/namespaces", ns);
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } };
    expect(
      (await callApi(a!.credentials, "POST", "/api/v1/namespaces/short-lived/configmaps", cm)).status,
    ).toBe(201);
    expect((await callApi(a!.credentials, "DELETE", "/api/v1/namespaces/short-lived")).status).toBe(200);
    const deadline = Date.now() + 60_000;
    let status = 200;
    while (status !== 404 && Date.now() < deadline) {
      status = (await callApi(a!.credentials, "GET", "/api/v1/namespaces/short-lived")).status;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(status).toBe(404);
  });

  test("a second cluster on an address:port already in use is refused", async () => {
    await expect(startCluster({ name: "again", address: "127.0.2.30" })).rejects.toThrow(
      "127.0.2.30:6443 (ports.apiServer) is already in use: is cluster again already running?",
    );
  });

  test("stop() ends every process of the cluster and removes its temporary directory", async () => {
    const pids = a!.processes.map((p) => p.pid);
    expect(pids.every(isRunning)).toBe(true);
    await a!.stop();
    expect(pids.some(isRunning)).toBe(false);
    expect(fs.existsSync(a!.dir)).toBe(false);
    a = undefined;
    // the other cluster is untouched
    expect((await callApi(b!.credentials, "GET", "/readyz")).status).toBe(200);
  });
});
