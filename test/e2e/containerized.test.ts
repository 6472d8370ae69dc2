/**
 * The containerized estate for real: the repository's stacks program deployed by the real engine (the
 * Automation API, the real CLI, Node.js host, tls and kubernetes providers) onto the e2e lab's host
 * cluster of three real nodes (kubelet + containerd), with the library's own PKI and nothing stood in.
 * Every pod is a real pull from the lab registry (`images.registry`: the offline install). The etcd
 * StatefulSet forms a quorum over peer TLS on claims bound by node-local storage; karmada-apiserver serves
 * through the Karmada CA the library generated; the aggregated API is Available; a push member and a pull
 * member (its karmada-agent a Pod with the identity the library gives it) become Ready; a workload
 * propagated through Karmada runs on the members' nodes. Then the day-2 checks on the same estate: a
 * quiet second `up`, an image-change preview and its PR summary, a certificate rotation that rolls the
 * pods, drift repaired, both members' credentials rotated (Karmada's copies refreshed, the members
 * Ready throughout), a scheduled backup restored into a new etcd, `destroy` with the workload still in
 * Karmada keeping etcd's data, and the next `up` resuming on it.
 */
import type { PolicyEvent } from "@pulumi/pulumi/automation";
import { execFileSync, spawn } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { findRelease, DEFAULT_KARMADA_VERSION, KarmadaComponent, resolveImage } from "../../lib/catalog";
import { objectNames } from "../../lib/controlplane/names";
import { kubeResourceName } from "../../lib/kube/apply";
import { parseUrn } from "../../lib/preview/urn";
import { CERTIFICATES_CHECKSUM_ANNOTATION } from "../../lib/manifests/workloads/metadata";
import { memberObjectNames } from "../../lib/members/names";
import { clusterFiles } from "../../devkit/lab/controlPlane";
import { nodeFiles } from "../../devkit/lab/nodeConfig";
import { clusterOf } from "../../devkit/lab/plan";
import { PostgresServer, startPostgres } from "../../devkit/postgres";
import { REPO_ROOT, requireBinary, testbedEnv } from "../../devkit/testbed";
import {
  StateResource,
  changedResources,
  describeChanges,
  e2eTier,
  kubeObjectsInState,
  leafCertificateResources,
  CliOptions,
  E2E_PASSPHRASE,
  leakedSecrets,
  recordSteps,
  runCli,
  secretsInExport,
  stackSecrets,
  startCli,
  stateResources,
  summaryChanges,
} from "../../devkit/engine";
import { LabEstate, LabEstateOverrides, labEstate, mergeConfig } from "../../devkit/engine/labEstate";
import {
  ApiCredentials,
  ObjectLocator,
  apiGet,
  credentialsFromKubeconfig,
  listNames,
  waitFor,
} from "../../devkit/kube";
import { callApi } from "../../lib/kube/rest";
import { LAB_NEEDS } from "../../devkit/lab/useLab";
import { putKeysScript, restoredKeyCount } from "../support/etcdData";
import { openssl } from "../../devkit/pki";

jest.setTimeout(30 * 60_000);

const tier = e2eTier(
  "containerized estate on real nodes, real engine (test/e2e/containerized.test.ts)",
  LAB_NEEDS,
);

const NAMESPACE = "karmada-system";
const inControlPlane = (urn: string) => urn.includes("::karmada:index:KarmadaControlPlane$");
const deploymentUrnName = (name: KarmadaComponent) =>
  kubeResourceName("karmada", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: objectNames.workload(name), namespace: NAMESPACE },
  });
const CONTROLLER_MANAGER_DEPLOYMENT = deploymentUrnName("karmada-controller-manager");
const SCHEDULER_DEPLOYMENT = deploymentUrnName("karmada-scheduler");

/** The pods of a namespace: name, node, phase, every container ready, images. */
async function podsOf(creds: ApiCredentials, namespace: string) {
  const list = await apiGet(creds, `/api/v1/namespaces/${namespace}/pods`);
  return (list.items as any[]).map((p) => ({
    name: p.metadata.name as string,
    node: p.spec.nodeName as string,
    phase: p.status.phase as string,
    /** deleted, its containers still stopping (a replaced pod on its way out) */
    terminating: p.metadata.deletionTimestamp !== undefined,
    ready:
      (p.status.containerStatuses ?? []).length > 0 && p.status.containerStatuses.every((c: any) => c.ready),
    images: [...(p.spec.initContainers ?? []), ...p.spec.containers].map((c: any) => c.image as string),
  }));
}

const readyCondition = (obj: any, type = "Ready") =>
  obj?.status?.conditions?.find((c: any) => c.type === type)?.status;

tier.describe("containerized estate on the lab's real nodes (real engine)", () => {
  let estate: LabEstate;
  let host: ObjectLocator;
  let karmada: ApiCredentials;
  let etcdClaims: string[] = [];
  /** The certificate rotation of the rotation tests; every later configuration keeps it. */
  const ROTATED: LabEstateOverrides = { controlPlane: { pki: { rotation: { generation: 1 } } } };
  /** ROTATED plus both members' credential rotation (the credential-rotation test); later tests keep it. */
  const MEMBERS_ROTATED: LabEstateOverrides = {
    ...ROTATED,
    members: { member1: { credentialGeneration: 1 }, member2: { credentialGeneration: 1 } },
  };
  /** Backups every minute into their own claim (the scheduled-backup test); destroy and resume keep it. */
  const WITH_BACKUP: LabEstateOverrides = {
    ...MEMBERS_ROTATED,
    etcd: {
      inCluster: { backup: { schedule: "* * * * *", retain: 2, target: { kind: "pvc", size: "1Gi" } } },
    },
  };

  /** The team's state backend this estate's stack lives in (docs/teams.md). */
  let stateStore: PostgresServer;

  beforeAll(async () => {
    stateStore = await startPostgres();
    estate = await labEstate("containerized", {}, undefined, {
      backendUrl: stateStore.url,
      backendCredentials: { PGPASSWORD: stateStore.password },
    });
    host = new ObjectLocator(estate.host);
  });

  afterAll(() => {
    estate?.cleanup();
    stateStore?.stop();
  });

  /** etcdctl in etcd-0, as its server identity. */
  const ETCDCTL_IN_POD = [
    "etcdctl",
    "--endpoints=https://127.0.0.1:2379",
    "--cacert=/etc/etcd/pki/ca.crt",
    "--cert=/etc/etcd/pki/server.crt",
    "--key=/etc/etcd/pki/server.key",
  ];
  /** kubectl's arguments for the host cluster's control-plane namespace, as its admin. */
  const onHost = (...args: string[]) => [
    "--kubeconfig",
    clusterFiles(clusterOf(estate.lab.plan, "host")).kubeconfig("admin"),
    "-n",
    NAMESPACE,
    ...args,
  ];
  /** Runs `command` in etcd-0 (`kubectl exec`); `input` goes to its stdin. */
  const inEtcd0 = (command: readonly string[], input?: string) =>
    execFileSync(requireBinary("kubectl"), onHost("exec", "-i", "etcd-0", "--", ...command), {
      encoding: "utf8",
      env: testbedEnv().env,
      input,
      stdio: ["pipe", "pipe", "pipe"],
    });
  /** ETCDCTL_IN_POD talking to `endpoint` instead of etcd-0's own member. */
  const etcdctlAt = (endpoint: string) =>
    ETCDCTL_IN_POD.map((arg) => (arg.startsWith("--endpoints=") ? `--endpoints=${endpoint}` : arg));
  /** `etcdctl` in etcd-0 as its server identity; `input` goes to its stdin. */
  const etcdctl = (args: readonly string[], input?: string) => inEtcd0([...ETCDCTL_IN_POD, ...args], input);
  /** Keys under `prefix`, counted in etcd-0. */
  const keysUnder = (prefix: string) =>
    Number(/"Count" : (\d+)/.exec(etcdctl(["get", prefix, "--prefix", "--count-only", "-w", "fields"]))?.[1]);
  /** Waits until both members' Clusters are Ready in Karmada. */
  const membersReady = (what: string, timeoutMs: number) =>
    waitFor(
      what,
      async () => {
        const list = await apiGet(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters");
        return (list.items as any[]).filter((c) => readyCondition(c) === "True").length === 2;
      },
      timeoutMs,
      2000,
    );
  /** Waits until a web pod runs and is ready in each member. */
  const webRunning = async (timeoutMs: number) => {
    for (const member of ["member1", "member2"]) {
      await waitFor(
        `the web pod Running and ready in ${member}`,
        async () =>
          (await podsOf(estate.cluster(member), "default")).some(
            (p) => p.name.startsWith("web-") && p.phase === "Running" && p.ready,
          ),
        timeoutMs,
        2000,
      );
    }
  };

  test("up: every control-plane pod Running and Ready on the host nodes, every image pulled from the lab registry", async () => {
    const steps = recordSteps();
    const result = await estate.stack.up({ onEvent: steps.onEvent });
    expect(result.summary.result).toBe("succeeded");
    expect(result.outputs.apiEndpoint.value).toBe(estate.karmadaApiUrl);
    expect(result.outputs.adminKubeconfig.secret).toBe(true);
    karmada = credentialsFromKubeconfig(result.outputs.adminKubeconfig.value);

    const pods = await podsOf(estate.host, NAMESPACE);
    console.log(
      `control-plane pods:\n${pods.map((p) => `  ${p.name.padEnd(48)} ${p.node.padEnd(8)} ${p.phase} ready=${p.ready}`).join("\n")}`,
    );
    const expected = [
      "etcd",
      "karmada-apiserver",
      "karmada-aggregated-apiserver",
      "kube-controller-manager",
      "karmada-controller-manager",
      "karmada-scheduler",
      "karmada-webhook",
    ];
    for (const prefix of expected) expect(pods.some((p) => p.name.startsWith(`${prefix}-`))).toBe(true);
    // the membership job ran once after etcd was up, with nothing to remove
    const jobPods = pods.filter((p) => p.name.startsWith("etcd-members-"));
    expect(jobPods.map((p) => p.phase)).toEqual(["Succeeded"]);
    const serving = pods.filter((p) => !jobPods.includes(p));
    expect(serving.filter((p) => p.phase !== "Running" || !p.ready).map((p) => p.name)).toEqual([]);
    // etcd's required anti-affinity: one member per host node
    const etcdMembers = serving.filter((p) => /^etcd-\d+$/.test(p.name));
    expect(etcdMembers).toHaveLength(3);
    expect(new Set(etcdMembers.map((p) => p.node)).size).toBe(3);
    const registry = `${estate.lab.plan.registry}/karmada/`;
    expect(pods.flatMap((p) => p.images).filter((i) => !i.startsWith(registry))).toEqual([]);
  });

  test("nothing preloaded: every image on every node was pulled from the lab registry", () => {
    const refs = estate.lab.plan.clusters.flatMap((c) =>
      c.nodes.flatMap((n) =>
        execFileSync(
          requireBinary("ctr"),
          ["--address", nodeFiles(n).containerdSocket, "-n", "k8s.io", "images", "ls", "-q"],
          {
            encoding: "utf8",
          },
        )
          .split("\n")
          .filter((r) => r && !r.startsWith("sha256:")),
      ),
    );
    console.log(`images pulled by the lab's nodes:\n  ${[...new Set(refs)].sort().join("\n  ")}`);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r.startsWith(`${estate.lab.plan.registry}/`))).toEqual([]);
  });

  /** The etcd member pods: name → uid, restarts of its etcd container, node, ready. */
  const etcdPods = async () => {
    const list = await apiGet(
      estate.host,
      `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/name=etcd")}`,
    );
    return new Map(
      (list.items as any[])
        .filter((p) => p.metadata.deletionTimestamp === undefined)
        .map((p) => [
          p.metadata.name as string,
          {
            uid: p.metadata.uid as string,
            restarts: (p.status.containerStatuses ?? [])[0]?.restartCount as number | undefined,
            node: p.spec.nodeName as string,
            ready: (p.status.containerStatuses ?? []).some((c: any) => c.ready),
          },
        ]),
    );
  };
  test("etcd: three members started over peer TLS, on claims bound by node-local storage", async () => {
    const claims = await apiGet(estate.host, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`);
    etcdClaims = (claims.items as any[]).map((c) => c.metadata.name).sort();
    expect(etcdClaims).toEqual(["data-etcd-0", "data-etcd-1", "data-etcd-2"]);
    expect((claims.items as any[]).map((c) => `${c.status.phase}/${c.spec.storageClassName}`)).toEqual(
      Array(3).fill("Bound/local-path"),
    );
    const table = etcdctl(["member", "list", "-w", "table"]);
    console.log(`etcd member list:\n${table}`);
    const members = table.split("\n").filter((l) => /\| started \|/.test(l));
    expect(members).toHaveLength(3);
    for (const m of members)
      expect(m).toMatch(/https:\/\/etcd-\d\.etcd\.karmada-system\.svc\.cluster\.local:2380/);
  });

  test("karmada-apiserver serves through the Karmada CA the library generated, to the admin kubeconfig it outputs", async () => {
    const outputs = await estate.stack.outputs();
    expect(karmada.server).toBe(estate.karmadaApiUrl);
    expect(karmada.caPem.trim()).toBe(String(outputs.caCertPem.value).trim());
    expect((await callApi(karmada, "GET", "/readyz")).status).toBe(200);
    const review = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "*", group: "*", resource: "*" } },
    };
    const answer = await callApi(
      karmada,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      review,
    );
    expect(answer.body.status.allowed).toBe(true);
    // Available is the aggregator's periodic check of the backend: give it a few rounds on a loaded machine
    await waitFor(
      "APIService v1alpha1.cluster.karmada.io Available",
      async () =>
        readyCondition(
          await apiGet(karmada, "/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.cluster.karmada.io"),
          "Available",
        ) === "True",
      60_000,
      1000,
    );
    const crds = await apiGet(karmada, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
    expect(crds.items.length).toBeGreaterThan(10);
    expect(
      (crds.items as any[])
        .filter((c) => readyCondition(c, "Established") !== "True")
        .map((c) => c.metadata.name),
    ).toEqual([]);
  });

  test("members: push member1 and pull member2 Ready; the agent is a Pod with the library's agent identity, not an admin", async () => {
    await membersReady("member1 and member2 Ready in Karmada", 180_000);
    const clusters = await apiGet(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters");
    expect((clusters.items as any[]).map((c) => `${c.metadata.name}:${c.spec.syncMode}`).sort()).toEqual([
      "member1:Push",
      "member2:Pull",
    ]);

    const member2 = estate.cluster("member2");
    const agents = await podsOf(member2, "karmada-system");
    expect(
      agents.filter((p) => p.name.startsWith("karmada-agent-") && p.phase === "Running" && p.ready),
    ).toHaveLength(1);
    // the identity the agent runs with: the kubeconfig Secret its Pod mounts
    const secret = await apiGet(member2, "/api/v1/namespaces/karmada-system/secrets/karmada-kubeconfig");
    const agent = credentialsFromKubeconfig(
      Buffer.from(secret.data["karmada-kubeconfig"], "base64").toString("utf8"),
    );
    const subject = openssl(["x509", "-noout", "-subject", "-nameopt", "RFC2253"], { input: agent.certPem });
    expect(subject.trim()).toBe(
      `subject=CN=${memberObjectNames("member2").agentUser},O=system:karmada:agents`,
    );
    const may = async (verb: string, resource: string, group: string, name?: string) =>
      (
        await callApi(agent, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { verb, group, resource, name } },
        })
      ).body.status.allowed;
    expect(await may("get", "clusters", "cluster.karmada.io", "member2")).toBe(true);
    expect(await may("*", "*", "*")).toBe(false);
    expect(await may("delete", "clusters", "cluster.karmada.io", "member1")).toBe(false);
  });

  test("a Deployment propagated through Karmada runs on both members' nodes; Karmada aggregates its ready replicas", async () => {
    const image = estate.lab.image("karmada/busybox");
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default", labels: { app: "web" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            securityContext: { runAsNonRoot: true, runAsUser: 65532 },
            containers: [
              {
                name: "web",
                image,
                command: [
                  "sh",
                  "-c",
                  "mkdir -p /tmp/www && echo ok > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www",
                ],
                readinessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 2 },
              },
            ],
          },
        },
      },
    };
    const policy = {
      apiVersion: "policy.karmada.io/v1alpha1",
      kind: "PropagationPolicy",
      metadata: { name: "web", namespace: "default" },
      spec: {
        resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web" }],
        placement: { clusterAffinity: { clusterNames: ["member1", "member2"] } },
      },
    };
    expect(
      (
        await callApi(
          karmada,
          "POST",
          "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies",
          policy,
        )
      ).status,
    ).toBe(201);
    expect(
      (await callApi(karmada, "POST", "/apis/apps/v1/namespaces/default/deployments", deployment)).status,
    ).toBe(201);
    await webRunning(180_000);
    await waitFor(
      "Karmada's aggregated status: 2 ready replicas",
      async () =>
        (await apiGet(karmada, "/apis/apps/v1/namespaces/default/deployments/web")).status?.readyReplicas ===
        2,
      120_000,
      2000,
    );
  });

  /** The stack's lock files in the PostgreSQL backend (one per engine operation holding the stack). */
  const locks = () => stateStore.query("SELECT key FROM pulumi_state WHERE key LIKE '%/.pulumi/locks/%'");
  /** CLI arguments for this estate's stack, run as CI runs them. */
  const onStack = (...args: string[]) => [...args, "--stack", estate.stack.name, "--non-interactive"];
  const up = () => onStack("up", "--yes", "--skip-preview", "--json");
  const cliIn = (args: readonly string[], options?: CliOptions) =>
    runCli(estate.engine, estate.stack.workspace.workDir, args, options);
  /** The engine's refusal of a locked stack, with the holder's line `created by <user>@<host> (pid N)`. */
  const LOCKED =
    /error: the stack is currently locked by 1 lock\(s\)[^\n]*\n\s*\S+: created by \S+@\S+ \(pid (\d+)\) at \S+/;
  /** An update's changes, `read` aside (the members' kube-system Namespaces, read for the Clusters' ids). */
  const changesOf = (events: Parameters<typeof summaryChanges>[0]) =>
    Object.keys(summaryChanges(events) ?? { missing: 1 }).filter((op) => op !== "read");
  /** `pulumi stack export` parses, holds the estate and no operation left pending. */
  const expectCleanExport = async () => {
    const exported = await cliIn(onStack("stack", "export"));
    expect(exported.code).toBe(0);
    const deployment = JSON.parse(exported.stdout).deployment;
    expect(deployment.resources.length).toBeGreaterThan(100);
    expect(deployment.pending_operations ?? []).toEqual([]);
  };

  test("state in PostgreSQL: of two `up`s a moment apart exactly one proceeds and changes nothing; the other fails at once naming the lock's holder; the state exports cleanly", async () => {
    expect(estate.engine.backendUrl).toMatch(/^postgres:\/\/.*@127\.0\.0\.1:/);
    // the second starts the moment the first holds the lock: two CI jobs a moment apart
    const first = startCli(estate.engine, estate.stack.workspace.workDir, up());
    let firstDone = false;
    void first.finished.then(() => (firstDone = true));
    await waitFor(
      "the first up holds the stack's lock in PostgreSQL",
      async () => locks().length === 1,
      120_000,
      50,
    );
    const second = await cliIn(up());
    expect(firstDone).toBe(false);
    const refusal = `${second.stderr}\n${second.stdout}`;
    console.log(`the second up, refused:\n${refusal.match(LOCKED)?.[0] ?? refusal}`);
    expect(second.code).not.toBe(0);
    expect(refusal.match(LOCKED)?.[1]).toBe(String(first.pid));
    expect(second.events.filter((e) => e.resourcePreEvent)).toEqual([]);

    const done = await first.finished;
    expect({ code: done.code, stderr: done.code === 0 ? "" : done.stderr }).toEqual({ code: 0, stderr: "" });
    expect(changesOf(done.events)).toEqual(["same"]);
    const steps = recordSteps();
    done.events.forEach(steps.onEvent);
    expect(describeChanges(steps.steps)).toEqual([]);
    expect(locks()).toEqual([]);
    await expectCleanExport();
  });

  test("an `up` killed mid-way leaves its lock: the next `up` is refused naming the dead CLI; `pulumi cancel`, then `up`, converges with no change", async () => {
    const killed = startCli(estate.engine, estate.stack.workspace.workDir, up());
    await waitFor(
      "the up mid-way through the estate's steps",
      async () => killed.events.filter((e) => e.resourcePreEvent).length >= 50,
      300_000,
      100,
    );
    killed.killGroup();
    expect((await killed.finished).signal).toBe("SIGKILL");
    expect(locks()).toHaveLength(1);

    const refused = await cliIn(up());
    expect(refused.code).not.toBe(0);
    expect(`${refused.stderr}\n${refused.stdout}`.match(LOCKED)?.[1]).toBe(String(killed.pid));

    const cancel = await cliIn(onStack("cancel", "--yes"));
    expect({ code: cancel.code, out: cancel.stdout + cancel.stderr }).toEqual({
      code: 0,
      out: expect.stringContaining("has been canceled"),
    });
    expect(locks()).toEqual([]);

    const resumed = await cliIn(up());
    expect({ code: resumed.code, stderr: resumed.code === 0 ? "" : resumed.stderr }).toEqual({
      code: 0,
      stderr: "",
    });
    expect(changesOf(resumed.events)).toEqual(["same"]);
    await expectCleanExport();
  });

  test("the passphrase rotates: `change-secrets-provider` re-encrypts the config and the state; the old passphrase opens neither, the new one both; and back", async () => {
    const NEW_PASSPHRASE = "pulumi-karmada-e2e-rotated";
    const withPassphrase = (passphrase: string) => ({ env: { PULUMI_CONFIG_PASSPHRASE: passphrase } });
    /** The state's and the config's secrets, decrypted with `passphrase`. */
    const openWith = async (passphrase: string) => {
      const state = await cliIn(onStack("stack", "export", "--show-secrets"), withPassphrase(passphrase));
      const config = await cliIn(onStack("config", "--show-secrets", "--json"), withPassphrase(passphrase));
      return {
        state: state.code,
        config: config.code,
        secrets: state.code === 0 ? secretsInExport(JSON.parse(state.stdout)).length : 0,
      };
    };
    /** `change-secrets-provider passphrase` as an operator runs it: the current one in the environment, the new one typed twice. */
    const rotate = async (from: string, to: string) => {
      const rotated = await cliIn(onStack("stack", "change-secrets-provider", "passphrase"), {
        ...withPassphrase(from),
        input: `${to}\n${to}\n`,
      });
      expect({ code: rotated.code, stderr: rotated.code === 0 ? "" : rotated.stderr }).toEqual({
        code: 0,
        stderr: "",
      });
    };
    const before = await openWith(E2E_PASSPHRASE);
    expect(before.secrets).toBeGreaterThan(20);

    await rotate(E2E_PASSPHRASE, NEW_PASSPHRASE);
    expect(await openWith(NEW_PASSPHRASE)).toEqual({ state: 0, config: 0, secrets: before.secrets });
    const old = await openWith(E2E_PASSPHRASE);
    expect([old.state, old.config].every((code) => code !== 0)).toBe(true);

    await rotate(NEW_PASSPHRASE, E2E_PASSPHRASE);
    expect(await openWith(E2E_PASSPHRASE)).toEqual(before);
  });

  test("a new scheduler image previews as an update of the scheduler Deployment only, and the PR summary says so", async () => {
    const image = `${resolveImage("karmada-scheduler", findRelease(DEFAULT_KARMADA_VERSION), { registry: `${estate.lab.plan.registry}/karmada` })}-e2e`;
    await estate.configure({ controlPlane: { components: { scheduler: { image } } } });
    try {
      const steps = recordSteps();
      const preview = await estate.stack.preview({ onEvent: steps.onEvent });
      expect(describeChanges(steps.steps)).toEqual([
        `kubernetes:apps/v1:Deployment ${SCHEDULER_DEPLOYMENT}: update`,
      ]);
      expect(preview.changeSummary).toEqual({ same: expect.any(Number), read: 2, update: 1 });

      // the PR summary of the same preview, through the script CI runs
      const out = path.join(estate.engine.dir, "summary");
      const markdown = execFileSync(
        path.join(REPO_ROOT, "node_modules", ".bin", "ts-node"),
        [
          "--transpile-only",
          path.join(REPO_ROOT, "scripts", "preview-summary.ts"),
          "--stack",
          estate.stack.name,
          "--cwd",
          estate.stack.workspace.workDir,
          "--json-out",
          `${out}.json`,
          "--markdown-out",
          `${out}.md`,
        ],
        {
          env: { ...process.env, ...estate.engine.env },
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      expect(markdown).toContain("| KarmadaControlPlane `karmada` | 0 | 1 | 0 | 0 | 0 |");
      expect(markdown).toContain(
        `- \`Deployment\` **${SCHEDULER_DEPLOYMENT}** — changes: \`spec.template.spec.containers[0].image\``,
      );
      expect(markdown).toContain("**0 to create · 1 to update · 0 to replace · 0 to delete**");
      // one changed image, one object line
      expect(markdown.split("\n").filter((line) => line.startsWith("- `"))).toHaveLength(1);
      // and not one secret of the stack (keys, tokens, kubeconfigs, config secrets) in either artefact
      const { needles, plaintextPrivateKeys } = stackSecrets(
        estate.engine,
        estate.stack.workspace.workDir,
        estate.stack.name,
      );
      expect(plaintextPrivateKeys).toEqual([]);
      expect(needles.length).toBeGreaterThan(20);
      const previewJson = fs.readFileSync(`${out}.json`, "utf8");
      expect(JSON.parse(previewJson).steps.length).toBeGreaterThan(100);
      expect({
        markdown: leakedSecrets(markdown, needles),
        json: leakedSecrets(previewJson, needles),
      }).toEqual({
        markdown: [],
        json: [],
      });
    } finally {
      await estate.configure();
    }
  });

  test("the policy pack passes the estate as run (backups on) and names each violation and its fix when the estate is weakened", async () => {
    const configFile = path.join(estate.engine.dir, "policy-config.json");
    // the production choice for images: the lab's registry is this estate's mirror
    fs.writeFileSync(
      configFile,
      JSON.stringify({ "images-from-allowed-registries": { allowedRegistries: [estate.lab.plan.registry] } }),
    );
    const previewWithPack = async () => {
      const events: PolicyEvent[] = [];
      let failed: string | undefined;
      try {
        await estate.stack.preview({
          policyPacks: [path.join(REPO_ROOT, "policy")],
          policyPackConfigs: [configFile],
          onEvent: (e) => {
            if (e.policyEvent) events.push(e.policyEvent);
          },
        });
      } catch (e) {
        failed = String(e);
      }
      return { events, failed, mandatory: events.filter((e) => e.enforcementLevel === "mandatory") };
    };
    try {
      await estate.configure({
        etcd: {
          inCluster: {
            backup: { schedule: "0 */4 * * *", retain: 12, target: { kind: "pvc", size: "1Gi" } },
          },
        },
      });
      const passing = await previewWithPack();
      expect(passing.failed).toBeUndefined();
      expect(passing.mandatory).toEqual([]);
      // advisory: nothing of this test estate is protected (its destroy test deletes it)
      expect([...new Set(passing.events.map((e) => e.policyName))]).toEqual(["stateful-protected"]);

      const foreign = "docker.io/karmada/karmada-scheduler:v1.18.2";
      await estate.configure({
        etcd: { inCluster: { replicas: 1 } },
        controlPlane: { pki: { leafValidityHours: 17_520 }, components: { scheduler: { image: foreign } } },
      });
      const failing = await previewWithPack();
      expect(failing.failed).toMatch(/preview failed/);
      const rule = (name: string) => failing.mandatory.filter((e) => e.policyName === name);
      expect(rule("etcd-members")).toEqual([
        expect.objectContaining({
          resourceUrn: expect.stringContaining("karmada:index:EtcdCluster$kubernetes:apps/v1:StatefulSet::"),
          message: expect.stringContaining('etcd "etcd" runs 1 member(s)'),
        }),
      ]);
      expect(rule("etcd-members")[0].message).toContain("Fix: etcd.inCluster.replicas: 3.");
      expect(rule("etcd-backups")).toEqual([
        expect.objectContaining({
          resourceUrn: expect.stringMatching(/::karmada:index:EtcdCluster::etcd$/),
          message: expect.stringContaining("Fix: etcd.inCluster.backup"),
        }),
      ]);
      const long = rule("leaf-certificate-validity");
      expect(long.length).toBeGreaterThan(5);
      for (const v of long) {
        expect(v.resourceUrn).toContain("::karmada:index:KarmadaControlPlane$tls:index/locallySignedCert:");
        expect(v.message).toMatch(
          /is issued for 17520 hours \(more than 8760\)\. Fix: pki\.leafValidityHours: 8760/,
        );
      }
      expect(rule("images-from-allowed-registries")).toEqual([
        expect.objectContaining({
          resourceUrn: expect.stringContaining(`::${SCHEDULER_DEPLOYMENT}`),
          message: expect.stringContaining(`pulls ${foreign}, outside the allowed registries`),
        }),
      ]);
      // nothing else is mandatory-broken by this edit
      expect([...new Set(failing.mandatory.map((e) => e.policyName))].sort()).toEqual([
        "etcd-backups",
        "etcd-members",
        "images-from-allowed-registries",
        "leaf-certificate-validity",
      ]);
      console.log(`a violation as the engine reported it:\n${rule("etcd-members")[0].message}`);
    } finally {
      await estate.configure();
    }
  });

  /** The Karmada providers' identities: renewed on their own schedule, never by a generation bump. */
  const isProviderSlot = (urn: string) => /-provider-[ab]-(cert|key|csr)$/.test(urn);
  /** Control-plane leaves a generation bump renews (key, CSR, certificate URNs), all but the provider slots. */
  const leafResources = (resources: readonly StateResource[]) =>
    new Set([...leafCertificateResources(resources, inControlPlane)].filter((urn) => !isProviderSlot(urn)));

  test("rotation preview (generation bumped): leaves replaced, their Secrets and the workloads mounting them rewritten; objects inside Karmada diffed and unchanged; CAs and sa-key untouched", async () => {
    const resources = await stateResources(estate.stack);
    const leaves = leafResources(resources);
    expect(leaves.size).toBeGreaterThan(0);
    const inKarmada = new Set(
      kubeObjectsInState(resources)
        .filter((o) => o.providerName === "karmada-karmada")
        .map((o) => o.urn),
    );
    await estate.configure(ROTATED);
    try {
      const steps = recordSteps();
      await estate.stack.preview({ onEvent: steps.onEvent });
      const changed = changedResources(steps.steps);
      const typeOf = (urn: string) => steps.steps.find((s) => s.urn === urn)!.type;
      const replaces = (ops: string[]) => ops.some((op) => op.includes("replace"));
      const allowed = ([urn, ops]: [string, string[]]) =>
        (leaves.has(urn) && replaces(ops)) ||
        // the kubernetes provider replaces a Secret whose data changes (unless enableSecretMutable)
        (typeOf(urn) === "kubernetes:core/v1:Secret" && inControlPlane(urn)) ||
        // the pod template's certificates checksum rolls the workload onto the renewed certificates
        (typeOf(urn) === "kubernetes:apps/v1:Deployment" && inControlPlane(urn) && ops.join() === "update");
      expect(
        [...changed.entries()].filter((entry) => !allowed(entry)).map(([urn, ops]) => `${urn}: ${ops}`),
      ).toEqual([]);
      // the Karmada provider keeps its slot's kubeconfig: every object inside Karmada is diffed, none changes
      expect([...steps.diffUnavailable]).toEqual([]);
      expect(inKarmada.size).toBeGreaterThan(10);
      expect(
        [...changed.keys()].filter((urn) => inKarmada.has(urn) || urn.endsWith("::karmada-karmada")),
      ).toEqual([]);
      expect(resources.filter((r) => isProviderSlot(r.urn)).length).toBe(6);
      expect([...changed.keys()].filter(isProviderSlot)).toEqual([]);
      expect([...leaves].filter((urn) => !replaces(changed.get(urn) ?? []))).toEqual([]);
      const workloads = resources.filter((r) => /:apps\/v1:(Deployment|StatefulSet)$/.test(r.type));
      expect(
        workloads.filter((r) => inControlPlane(r.urn) !== (changed.get(r.urn)?.join() === "update")),
      ).toEqual([]);
      const neverRotated = resources.filter(
        (r) => r.type === "tls:index/selfSignedCert:SelfSignedCert" || /-(sa|ca)-key$/.test(r.urn),
      );
      expect(neverRotated.length).toBeGreaterThan(0);
      expect(neverRotated.filter((r) => changed.has(r.urn)).map((r) => r.urn)).toEqual([]);
    } finally {
      await estate.configure();
    }
  });

  test("rotation up: each control-plane workload rolls onto the renewed certificates (its new pods Ready), etcd does not; members stay Ready; the new admin kubeconfig works", async () => {
    const before = await stateResources(estate.stack);
    const inKarmada = new Set(
      kubeObjectsInState(before)
        .filter((o) => o.providerName === "karmada-karmada")
        .map((o) => o.urn),
    );
    const oldKubeconfig = (await estate.stack.outputs()).adminKubeconfig.value;
    const schedulerPods = (await podsOf(estate.host, NAMESPACE))
      .filter((p) => p.name.startsWith("karmada-scheduler-"))
      .map((p) => p.name);
    const etcdBefore = await etcdPods();
    await estate.configure(ROTATED);
    const steps = recordSteps();
    const result = await estate.stack.up({ onEvent: steps.onEvent });
    expect(result.summary.result).toBe("succeeded");
    const changed = changedResources(steps.steps);
    expect([...changed.keys()].filter((urn) => inKarmada.has(urn))).toEqual([]);
    const workloads = before.filter((r) => /:apps\/v1:(Deployment|StatefulSet)$/.test(r.type));
    expect(workloads.filter((r) => inControlPlane(r.urn)).length).toBeGreaterThan(0);
    expect(
      workloads.filter((r) => inControlPlane(r.urn) !== (changed.get(r.urn)?.join() === "update")),
    ).toEqual([]);
    expect([...leafResources(before)].filter((urn) => !changed.has(urn))).toEqual([]);
    // the rollout happened on the nodes: new scheduler pods, every pod Running and Ready again (old ones gone)
    await waitFor(
      "every control-plane pod Running and Ready on the renewed certificates",
      async () => {
        // (a finished job's pod, Succeeded, is not serving)
        const pods = (await podsOf(estate.host, NAMESPACE)).filter((p) => p.phase !== "Succeeded");
        return (
          pods.every((p) => p.phase === "Running" && p.ready) &&
          !pods.some((p) => schedulerPods.includes(p.name))
        );
      },
      120_000,
      2000,
    );
    // etcd's certificates are not the control plane's: its pods are the same ones
    expect(await etcdPods()).toEqual(etcdBefore);
    const checksum = (
      await host.get({
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: NAMESPACE,
        name: "karmada-scheduler",
      })
    ).spec.template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION];
    expect(checksum).toMatch(/^[0-9a-f]{64}$/);
    const kubeconfig = (await estate.stack.outputs()).adminKubeconfig.value;
    expect(kubeconfig).not.toBe(oldKubeconfig);
    karmada = credentialsFromKubeconfig(kubeconfig);
    expect((await callApi(karmada, "GET", `/api/v1/namespaces/${NAMESPACE}`)).status).toBe(200);
    await waitFor(
      "both members Ready after the rotation",
      async () =>
        ((await apiGet(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters")).items as any[]).filter(
          (c) => readyCondition(c) === "True",
        ).length === 2,
      180_000,
      2000,
    );
  });

  test("drift: a controller Deployment deleted and a flag's value edited by hand; `refresh` shows exactly those, `up` puts both back", async () => {
    const deployment = (name: string) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: NAMESPACE,
      name,
    });
    const objectPath = (name: string) => `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${name}`;
    const planned = await host.get(deployment("karmada-scheduler"));
    const plannedArgs: string[] = planned.spec.template.spec.containers[0].args;
    // kubectl edit: an update by another field manager, a value changed in place (pulumi-kubernetes
    // compares the live object pruned to the planned shape, so an appended argument would not show)
    const edited = structuredClone(planned);
    expect(plannedArgs).toContain("--leader-elect=true");
    edited.spec.template.spec.containers[0].args = plannedArgs.map((a) =>
      a === "--leader-elect=true" ? "--leader-elect=false" : a,
    );
    expect(
      (
        await callApi(
          estate.host,
          "PUT",
          `${objectPath("karmada-scheduler")}?fieldManager=kubectl-edit`,
          edited,
        )
      ).status,
    ).toBe(200);
    expect((await callApi(estate.host, "DELETE", objectPath("karmada-controller-manager"))).status).toBe(200);
    await waitFor(
      "the controller manager Deployment gone",
      async () => (await host.get(deployment("karmada-controller-manager"))) === undefined,
      60_000,
    );

    const refreshed: { name: string; changed: boolean }[] = [];
    const beforeRefresh = await stateResources(estate.stack);
    await estate.stack.refresh({
      onEvent: (e) => {
        const md = e.resOutputsEvent?.metadata;
        if (md)
          refreshed.push({
            name: parseUrn(md.urn).name,
            changed: JSON.stringify(md.old?.outputs) !== JSON.stringify(md.new?.outputs),
          });
      },
    });
    const after = new Set((await stateResources(estate.stack)).map((r) => r.urn));
    expect(
      beforeRefresh.filter((r) => !after.has(r.urn)).map((r) => `${r.type} ${parseUrn(r.urn).name}`),
    ).toEqual([`kubernetes:apps/v1:Deployment ${CONTROLLER_MANAGER_DEPLOYMENT}`]);
    expect(refreshed.find((r) => r.name === SCHEDULER_DEPLOYMENT)!.changed).toBe(true);

    const steps = recordSteps();
    const result = await estate.stack.up({ onEvent: steps.onEvent });
    expect(result.summary.result).toBe("succeeded");
    expect(describeChanges(steps.steps)).toEqual(
      [
        `kubernetes:apps/v1:Deployment ${SCHEDULER_DEPLOYMENT}: update`,
        `kubernetes:apps/v1:Deployment ${CONTROLLER_MANAGER_DEPLOYMENT}: create`,
      ].sort(),
    );
    expect((await host.get(deployment("karmada-scheduler"))).spec.template.spec.containers[0].args).toEqual(
      plannedArgs,
    );
    // the deleted Deployment's pod may still be stopping (30 s grace) beside the new one
    const controllerManagers = async () =>
      (await podsOf(estate.host, NAMESPACE)).filter(
        (p) => p.name.startsWith("karmada-controller-manager-") && !p.terminating,
      );
    // the garbage collector marks the old ReplicaSet's pod terminating a moment after the new one starts
    await waitFor(
      "one controller manager pod not terminating, Running and ready",
      async () => {
        const pods = await controllerManagers();
        return pods.length === 1 && pods[0].phase === "Running" && pods[0].ready;
      },
      90_000,
      1000,
    );
    await waitFor(
      "the deleted controller manager's pod gone",
      async () => (await podsOf(estate.host, NAMESPACE)).filter((p) => p.terminating).length === 0,
      90_000,
      1000,
    );
    expect(await controllerManagers()).toHaveLength(1);
    const again = recordSteps();
    await estate.stack.up({ onEvent: again.onEvent });
    expect(describeChanges(again.steps)).toEqual([]);
  });

  test("credential rotation of both members (push member1, pull member2): new accounts and tokens in the members, Karmada's copies hold the new tokens (the agent never refreshes its copies itself) and reach the members with them; both Ready throughout", async () => {
    const members = ["member1", "member2"] as const;
    // tokens are compared by digest: a failed expectation never prints one
    const digest = (b64: string) => createHash("sha256").update(b64).digest("hex").slice(0, 16);
    const tokens = async (member: (typeof members)[number]) => {
      const names = memberObjectNames(member);
      const inMember = (account: string) =>
        apiGet(estate.cluster(member), `/api/v1/namespaces/karmada-cluster/secrets/${account}`);
      const inKarmada = (name: string) =>
        apiGet(karmada, `/api/v1/namespaces/karmada-cluster/secrets/${name}`);
      const account = await apiGet(
        estate.cluster(member),
        `/api/v1/namespaces/karmada-cluster/serviceaccounts/${names.serviceAccount}`,
      );
      const secrets = [
        await inMember(names.serviceAccount),
        await inMember(names.impersonatorServiceAccount),
      ];
      const copies = [await inKarmada(names.credentialSecret), await inKarmada(names.impersonatorSecret)];
      return {
        account: account.metadata.uid as string,
        member: secrets.map((c) => digest(c.data.token)),
        inKarmada: copies.map((c) => digest(c.data.token)),
        owners: copies.map((c) =>
          (c.metadata.ownerReferences ?? []).map((o: any) => `${o.kind}/${o.name}`).join(),
        ),
      };
    };
    const before = { member1: await tokens("member1"), member2: await tokens("member2") };
    for (const member of members) expect(before[member].inKarmada).toEqual(before[member].member);
    // the pull member's copies: written by Pulumi, adopted by the agent (owned by the Cluster)
    expect(before.member2.owners).toEqual(["Cluster/member2", "Cluster/member2"]);
    const agentPods = async () =>
      (await podsOf(estate.cluster("member2"), "karmada-system"))
        .filter((p) => p.name.startsWith("karmada-agent-") && !p.terminating)
        .map((p) => p.name);
    const agentsBefore = await agentPods();

    // the members' Ready conditions, sampled every 2 s while the rotation runs
    const notReady: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const list = await apiGet(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters").catch(
          () => undefined,
        );
        for (const c of (list?.items ?? []) as any[]) {
          if (readyCondition(c) !== "True")
            notReady.push(`${new Date().toISOString()} ${c.metadata.name} ${readyCondition(c)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    })();
    try {
      await estate.configure(MEMBERS_ROTATED);
      const result = await estate.stack.up();
      expect(result.summary.result).toBe("succeeded");
      for (const member of members) {
        const after = await tokens(member);
        // a new account, new tokens (the old Secrets and account deleted: the old tokens are revoked)…
        expect(after.account).not.toBe(before[member].account);
        expect(after.member.filter((d, i) => d === before[member].member[i])).toEqual([]);
        // …and Karmada's copies hold the new tokens
        expect(after.inKarmada).toEqual(after.member);
      }
      // the agent restarted on its new identity
      await waitFor(
        "a new karmada-agent pod Running and ready in member2",
        async () =>
          (await podsOf(estate.cluster("member2"), "karmada-system")).some(
            (p) =>
              p.name.startsWith("karmada-agent-") &&
              !agentsBefore.includes(p.name) &&
              p.phase === "Running" &&
              p.ready,
          ),
        180_000,
        2000,
      );
      // the new copies start without owners: the agent, once started, binds them to its Cluster
      await waitFor(
        "Karmada's copies of member2's new tokens owned by Cluster/member2",
        async () =>
          JSON.stringify((await tokens("member2")).owners) ===
          JSON.stringify(["Cluster/member2", "Cluster/member2"]),
        120_000,
        2000,
      );
      // Karmada reaches each member with the new impersonator token: its cluster proxy answers
      for (const member of members) {
        await waitFor(
          `Karmada's cluster proxy to ${member} answering`,
          async () =>
            (
              await callApi(
                karmada,
                "GET",
                `/apis/cluster.karmada.io/v1alpha1/clusters/${member}/proxy/api/v1/namespaces/karmada-cluster`,
              )
            ).status === 200,
          60_000,
          2000,
        );
      }
      await membersReady("member1 and member2 Ready after the credential rotation", 60_000);
    } finally {
      sampling = false;
      await sampler;
    }
    expect(notReady).toEqual([]);
  });

  test("scheduled backup: the CronJob on a one-minute schedule snapshots by itself on a host node; its snapshot restores into a new etcd with every key (10,000/10,000)", async () => {
    const prefix = "backup-drill/";
    const keys = 10_000;
    console.log(inEtcd0(["sh", "-c", putKeysScript(ETCDCTL_IN_POD.join(" "), prefix, keys)]).trim());
    expect(keysUnder(prefix)).toBe(keys);
    const written = Date.now();

    await estate.configure(WITH_BACKUP);
    const result = await estate.stack.up();
    expect(result.summary.result).toBe("succeeded");
    const jobs = async () =>
      ((await apiGet(estate.host, `/apis/batch/v1/namespaces/${NAMESPACE}/jobs`)).items as any[]).filter(
        (j) => j.metadata.ownerReferences?.some((o: any) => o.kind === "CronJob" && o.name === "etcd-backup"),
      );
    // a run scheduled after the keys were written (job names carry their scheduled minute)
    await waitFor(
      "a backup Job started after the write, succeeded",
      async () =>
        (await jobs()).some(
          (j) =>
            Date.parse(j.metadata.creationTimestamp) >= written - 1000 && (j.status?.succeeded ?? 0) >= 1,
        ),
      240_000,
      5000,
    );
    const pods = await apiGet(estate.host, `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=job-name`);
    const hostNodes = clusterOf(estate.lab.plan, "host").nodes.map((n) => n.name);
    const backupPods = (pods.items as any[]).filter((p) => p.status.phase === "Succeeded");
    expect(backupPods.length).toBeGreaterThan(0);
    for (const p of backupPods) expect(hostNodes).toContain(p.spec.nodeName);
    // no backup pod is selected by etcd's client Service (it would route clients to a pod not serving 2379)
    const service = await apiGet(estate.host, `/api/v1/namespaces/${NAMESPACE}/services/etcd-client`);
    const selector = Object.entries(service.spec.selector as Record<string, string>)
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    const selected = await apiGet(
      estate.host,
      `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=${encodeURIComponent(selector)}`,
    );
    expect((selected.items as any[]).map((p) => p.metadata.name).sort()).toEqual([
      "etcd-0",
      "etcd-1",
      "etcd-2",
    ]);

    // the newest snapshot, read from the node-local volume the backup claim is bound to
    const claim = await apiGet(
      estate.host,
      `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims/etcd-backup`,
    );
    const volume = await apiGet(estate.host, `/api/v1/persistentvolumes/${claim.spec.volumeName}`);
    const dir: string = volume.spec.hostPath?.path ?? volume.spec.local?.path;
    const snapshots = () =>
      fs
        .readdirSync(dir)
        .filter((f) => /^etcd-\d{8}T\d{6}Z\.db$/.test(f))
        .sort();
    const sha256Of = (db: string) =>
      fs.existsSync(`${db}.sha256`) ? fs.readFileSync(`${db}.sha256`, "utf8").split(/\s+/)[0] : "";
    // the CronJob runs every minute, and a run's store step renames its .db in, then writes the .sha256,
    // then prunes: read the volume between two runs (at most two kept, the newest recorded whole)
    await waitFor(
      "the backup volume between two runs",
      async () => {
        const list = snapshots();
        return list.length > 0 && list.length <= 2 && sha256Of(path.join(dir, list[list.length - 1])) !== "";
      },
      120_000,
      500,
    );
    const kept = snapshots();
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(2);
    const newest = path.join(dir, kept[kept.length - 1]);
    expect(sha256Of(newest)).toBe(createHash("sha256").update(fs.readFileSync(newest)).digest("hex"));
    const restored = await restoredKeyCount(newest, prefix, "127.0.20.1");
    console.log(`${path.basename(newest)}: ${restored}/${keys} keys restored`);
    expect(restored).toBe(keys);
  });

  /** WITH_BACKUP with etcd grown to five members (the scaling test, which then returns to WITH_BACKUP). */
  const FIVE_MEMBERS: LabEstateOverrides = {
    ...WITH_BACKUP,
    etcd: mergeConfig(WITH_BACKUP.etcd!, { inCluster: { replicas: 5 } }),
  };
  /** Started members as `name peer-URL`, sorted. */
  const startedMembers = () =>
    etcdctl(["member", "list", "-w", "simple"])
      .trim()
      .split("\n")
      .map((line) => line.split(", "))
      .filter(([, status]) => status === "started")
      .map(([, , name, peer]) => `${name} ${peer}`)
      .sort();
  const memberPeer = (i: number) => `etcd-${i} https://etcd-${i}.etcd.${NAMESPACE}.svc.cluster.local:2380`;

  test("etcd grows 3 → 5 → 3 and loses a pod while a writer runs: running members never restart, no key is lost", async () => {
    // the writer runs in etcd-0 (which the scaling must leave alone: a restart would end it) through
    // the client Service, until the stop file appears on its data volume
    const prefix = "scaling-drill/";
    const stopFile = "/var/lib/etcd/stop-writer";
    const viaService = [
      ...etcdctlAt(`https://etcd-client.${NAMESPACE}.svc.cluster.local:2379`),
      "--dial-timeout=3s",
      "--command-timeout=10s",
    ].join(" ");
    let writerOutput = "";
    const writer = spawn(
      requireBinary("kubectl"),
      onHost("exec", "etcd-0", "--", "sh", "-c", putKeysScript(viaService, prefix, 1_000_000, { stopFile })),
      { env: testbedEnv().env, stdio: ["ignore", "pipe", "pipe"] },
    );
    writer.stdout!.on("data", (chunk) => (writerOutput += chunk));
    writer.stderr!.on("data", (chunk) => (writerOutput += chunk));
    const writerExit = new Promise<number | null>((resolve) => writer.once("exit", resolve));
    const writing = () => {
      if (writer.exitCode !== null) console.log(`the writer ended early: ${writerOutput}`);
      return writer.exitCode === null;
    };
    await waitFor("the writer's first keys", async () => keysUnder(prefix) > 0, 60_000, 1000);
    const before = await etcdPods();
    expect([...before.keys()].sort()).toEqual(["etcd-0", "etcd-1", "etcd-2"]);

    // grow: only the StatefulSet changes (and the membership job is replaced); no certificate, no restart
    await estate.configure(FIVE_MEMBERS);
    const grown = await estate.stack.up();
    expect(grown.summary.result).toBe("succeeded");
    console.log(`3 → 5: ${JSON.stringify(grown.summary.resourceChanges)}`);
    expect(grown.summary.resourceChanges).toEqual(expect.objectContaining({ update: 1, replace: 1 }));
    // a member shows `started` once it has published itself through raft, a moment after it serves
    const fiveStarted = JSON.stringify([0, 1, 2, 3, 4].map(memberPeer));
    await waitFor(
      "five members started",
      async () => JSON.stringify(startedMembers()) === fiveStarted,
      60_000,
      1000,
    );
    expect(startedMembers()).toEqual([0, 1, 2, 3, 4].map(memberPeer));
    const five = await etcdPods();
    expect([...five.values()].every((p) => p.ready)).toBe(true);
    expect(new Set([...five.values()].map((p) => p.node)).size).toBe(5);
    for (const name of ["etcd-0", "etcd-1", "etcd-2"]) {
      expect(five.get(name)).toEqual(
        expect.objectContaining({ uid: before.get(name)!.uid, restarts: before.get(name)!.restarts }),
      );
    }
    expect(writing()).toBe(true);

    // lose a pod: etcd-1 comes back on its claim as the same member
    const idOf = (name: string) =>
      etcdctl(["member", "list", "-w", "simple"])
        .split("\n")
        .find((line) => line.split(", ")[2] === name)
        ?.split(", ")[0];
    const etcd1 = idOf("etcd-1");
    execFileSync(requireBinary("kubectl"), onHost("delete", "pod", "etcd-1", "--wait=true"), {
      env: testbedEnv().env,
      stdio: "pipe",
    });
    await waitFor(
      "etcd-1 back and ready",
      async () => {
        const p = (await etcdPods()).get("etcd-1");
        return p !== undefined && p.uid !== five.get("etcd-1")!.uid && p.ready;
      },
      180_000,
      2000,
    );
    expect(idOf("etcd-1")).toBe(etcd1);
    await waitFor("five members started", async () => startedMembers().length === 5, 60_000, 1000);
    expect(writing()).toBe(true);

    // shrink: the StatefulSet removes etcd-3 and etcd-4, then the membership job removes their members
    await estate.configure(WITH_BACKUP);
    const shrunk = await estate.stack.up();
    expect(shrunk.summary.result).toBe("succeeded");
    console.log(`5 → 3: ${JSON.stringify(shrunk.summary.resourceChanges)}`);
    expect(startedMembers()).toEqual([0, 1, 2].map(memberPeer));
    const three = await etcdPods();
    expect([...three.keys()].sort()).toEqual(["etcd-0", "etcd-1", "etcd-2"]);
    expect(three.get("etcd-0")).toEqual(
      expect.objectContaining({ uid: before.get("etcd-0")!.uid, restarts: before.get("etcd-0")!.restarts }),
    );
    // every attempt's log: the job retries while a removed pod still serves, and `logs job/…` shows one pod
    const jobLog = execFileSync(
      requireBinary("kubectl"),
      onHost("logs", "-l", "job-name=etcd-members", "--tail=-1", "--max-log-requests=20"),
      {
        env: testbedEnv().env,
        encoding: "utf8",
      },
    );
    expect(jobLog).toContain("removing member etcd-3");
    expect(jobLog).toContain("removing member etcd-4");
    // scale-in keeps the claims (whenScaled: Retain): their data is set aside if the pods ever return
    const claims = await apiGet(estate.host, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`);
    expect((claims.items as any[]).map((c) => c.metadata.name)).toEqual(
      expect.arrayContaining(["data-etcd-3", "data-etcd-4"]),
    );

    // no key lost: the writer's every key, in each member's own copy
    expect(writing()).toBe(true);
    inEtcd0(["sh", "-c", `: > ${stopFile}`]);
    const code = await writerExit;
    if (code !== 0) console.log(writerOutput);
    expect(code).toBe(0);
    inEtcd0(["sh", "-c", `rm -f ${stopFile}`]); // an applet of the image's busybox shell
    const written = Number(/wrote (\d+) keys/.exec(writerOutput)?.[1]);
    console.log(`writer: ${written} keys through 3 → 5 → 3 and a lost pod`);
    expect(written).toBeGreaterThan(1000);
    for (const i of [0, 1, 2]) {
      const own = () =>
        Number(
          /"Count" : (\d+)/.exec(
            inEtcd0([
              ...etcdctlAt(`https://etcd-${i}.etcd.${NAMESPACE}.svc.cluster.local:2379`),
              "get",
              prefix,
              "--prefix",
              "--count-only",
              "--consistency=s",
              "-w",
              "fields",
            ]),
          )?.[1],
        );
      await waitFor(`etcd-${i} holds all ${written} keys`, async () => own() === written, 30_000, 1000);
    }
  });

  const KEPT_KEYS = 1000;
  const keptCount = () => keysUnder("kept/");
  /**
   * The claims destroy keeps: etcd's data (with the claims of the two members the scaling test added and
   * removed) and, since the scheduled-backup test, its backups.
   */
  const keptClaims = () => [...etcdClaims, "data-etcd-3", "data-etcd-4", "etcd-backup"].sort();
  /** The web Deployment's copies in the members. */
  const webCopies = async () => {
    const copies: string[] = [];
    for (const member of ["member1", "member2"]) {
      const names = await listNames(estate.cluster(member), "/apis/apps/v1/namespaces/default/deployments");
      if (names.includes("web")) copies.push(member);
    }
    return copies;
  };

  test("destroy with the workload still in Karmada completes and removes everything but the data: etcd's namespace and claims", async () => {
    // keys written straight into etcd, to be read after the next `up`
    inEtcd0(["sh", "-c", putKeysScript(ETCDCTL_IN_POD.join(" "), "kept/", KEPT_KEYS)]);
    expect(keptCount()).toBe(KEPT_KEYS);
    // the web Deployment and its PropagationPolicy stay in Karmada: destroy must not wait on them
    expect(await webCopies()).toEqual(["member1", "member2"]);
    const result = await estate.stack.destroy();
    expect(result.summary.result).toBe("succeeded");
    expect((await stateResources(estate.stack)).filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
    const ns = await apiGet(estate.host, `/api/v1/namespaces/${NAMESPACE}`);
    expect(ns.status.phase).toBe("Active");
    expect(await listNames(estate.host, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`)).toEqual(
      keptClaims(),
    );
    expect(await listNames(estate.host, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`)).toEqual([]);
    // unjoined: nothing of Karmada's is left in the members
    for (const member of ["member1", "member2"]) {
      expect(
        (await listNames(estate.cluster(member), "/api/v1/namespaces")).filter((n) =>
          n.startsWith("karmada-"),
        ),
      ).toEqual([]);
    }
    // what became of the members' copies of the workload (docs/operations.md, "Destroy and up again")
    console.log(`web's copies in the members after destroy: ${JSON.stringify(await webCopies())}`);
  });

  test("`up` after destroy resumes on the kept data: etcd's keys, the workload in Karmada, propagated again", async () => {
    const steps = recordSteps();
    const result = await estate.stack.up({ onEvent: steps.onEvent });
    expect(result.summary.result).toBe("succeeded");
    // the kept namespace and the claims are adopted, not created anew
    karmada = credentialsFromKubeconfig(result.outputs.adminKubeconfig.value);
    expect(await listNames(estate.host, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`)).toEqual(
      keptClaims(),
    );
    expect(keptCount()).toBe(KEPT_KEYS);
    expect(etcdctl(["get", "kept/00999", "--print-value-only"]).trim()).toBe("v999");
    // Karmada's own data came back with etcd: the workload and its policy, never re-applied by the test
    const web = await apiGet(karmada, "/apis/apps/v1/namespaces/default/deployments/web");
    expect(web.metadata.name).toBe("web");
    await membersReady("member1 and member2 Ready again", 300_000);
    await webRunning(300_000);
    const again = recordSteps();
    await estate.stack.up({ onEvent: again.onEvent });
    expect(describeChanges(again.steps)).toEqual([]);
    // destroyed again (the data kept once more): the lab's other suites get its nodes back
    expect((await estate.stack.destroy()).summary.result).toBe("succeeded");
  });
});
