/**
 * The containerized control plane through the real engine (Automation API, real CLI and Node.js host,
 * real tls and kubernetes providers) against real API servers on loopback addresses: the repository's
 * stacks program, `up`, idempotent re-`up`, a one-component image change, a rotation preview and `destroy`.
 *
 * The test bed has no kubelet: pods never run, so `awaitWorkloads: false` (pulumi.com/skipAwait) is
 * required, and karmada-apiserver is played by a second kube-apiserver process (see estateFixture.ts).
 */
import { execFileSync } from "child_process";
import * as path from "path";
import { findRelease, DEFAULT_KARMADA_VERSION, resolveImage } from "../../lib/catalog";
import { objectNames } from "../../lib/controlplane/names";
import { kubeResourceName } from "../../lib/kube/apply";
import { parseUrn } from "../../lib/preview/urn";
import { CERTIFICATES_CHECKSUM_ANNOTATION } from "../../lib/manifests/workloads/metadata";
import {
  EstateFixture,
  KubeObjectInState,
  changedResources,
  describeChanges,
  e2eTier,
  kubeObjectsInState,
  leafCertificateResources,
  recordSteps,
  startEstateFixture,
  StateResource,
  stateResources,
} from "../support/engine";
import {
  REPO_ROOT,
  ObjectLocator,
  apiRequest,
  credentialsFromKubeconfig,
  describeRef,
  listNames,
  waitFor,
} from "../support/kube";

jest.setTimeout(30 * 60_000);

const tier = e2eTier("containerized control plane, real engine (test/e2e/containerized.test.ts)", {
  binaries: ["pulumi", "pulumi-language-nodejs", "etcd", "kube-apiserver", "kube-controller-manager"],
  plugins: ["tls", "random", "kubernetes"],
});

const NAMESPACE = "karmada-system";
const inControlPlane = (urn: string) => urn.includes("::karmada:index:KarmadaControlPlane$");

const CONTROLLER_MANAGER_DEPLOYMENT = kubeResourceName("karmada", {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: objectNames.workload("karmada-controller-manager"), namespace: NAMESPACE },
});
const SCHEDULER_DEPLOYMENT = kubeResourceName("karmada", {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: objectNames.workload("karmada-scheduler"), namespace: NAMESPACE },
});

tier.describe("containerized control plane on loopback API servers (real engine)", () => {
  let fx: EstateFixture;
  let host: ObjectLocator;
  let karmada: ObjectLocator;
  let deployed: KubeObjectInState[] = [];
  let etcdClaims: string[] = [];

  beforeAll(async () => {
    fx = await startEstateFixture("containerized", { host: "127.0.2.10", karmadaApi: "127.0.2.11" });
    host = new ObjectLocator(fx.host.credentials);
    karmada = new ObjectLocator(fx.karmadaApi.credentials);
  });

  afterAll(async () => {
    await fx?.stop();
  });

  /** `objects` split by whether the API server of their provider has them (`provider: Kind ns/name`). */
  async function lookUp(
    objects: readonly KubeObjectInState[],
  ): Promise<{ present: string[]; missing: string[] }> {
    const found = { present: [] as string[], missing: [] as string[] };
    for (const o of objects) {
      const live = await (o.providerName === "host" ? host : karmada).get(o);
      found[live ? "present" : "missing"].push(`${o.providerName}: ${describeRef(o)}`);
    }
    return found;
  }

  test("up: every object is accepted by the real API server it was meant for", async () => {
    const steps = recordSteps();
    const result = await fx.stack.up({ onEvent: steps.onEvent });
    expect(result.summary.result).toBe("succeeded");
    expect(result.outputs.apiEndpoint.value).toBe(fx.karmadaApi.server);
    expect(result.outputs.adminKubeconfig.secret).toBe(true);

    deployed = kubeObjectsInState(await stateResources(fx.stack));
    const providers = new Set(deployed.map((o) => o.providerName));
    expect([...providers].sort()).toEqual(["host", "karmada-karmada"]);
    const onHost = deployed.filter((o) => o.providerName === "host");
    for (const kind of ["Deployment", "Service", "Secret", "StatefulSet"]) {
      expect(onHost.filter((o) => o.kind === kind).length).toBeGreaterThan(0);
    }
    expect(
      deployed.filter((o) => o.providerName === "karmada-karmada" && o.kind === "CustomResourceDefinition")
        .length,
    ).toBeGreaterThan(0);
    expect((await lookUp(deployed)).missing).toEqual([]);
  });

  test("workloads carry skipAwait and the catalog images; the StatefulSet controller made etcd's claim", async () => {
    const scheduler = await host.get({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: NAMESPACE,
      name: "karmada-scheduler",
    });
    expect(scheduler.metadata.annotations["pulumi.com/skipAwait"]).toBe("true");
    expect(scheduler.spec.template.spec.containers[0].image).toBe(
      resolveImage("karmada-scheduler", findRelease(DEFAULT_KARMADA_VERSION)),
    );
    // no provisioner here: the claim stays Pending, which is why etcd must not be awaited either
    await waitFor(
      "etcd PVC",
      async () =>
        (await listNames(fx.host.credentials, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`))
          .length > 0,
      60_000,
    );
    etcdClaims = await listNames(
      fx.host.credentials,
      `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`,
    );
  });

  test("the admin kubeconfig output is trusted by, and admin on, the karmada-apiserver stand-in", async () => {
    const creds = credentialsFromKubeconfig((await fx.stack.outputs()).adminKubeconfig.value);
    expect(creds.server).toBe(fx.karmadaApi.server);
    expect((await apiRequest(creds, "GET", `/api/v1/namespaces/${NAMESPACE}`)).status).toBe(200);
    const review = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "*", group: "*", resource: "*" } },
    };
    const answer = await apiRequest(
      creds,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      review,
    );
    expect(answer.body.status.allowed).toBe(true);
    for (const crd of deployed.filter((o) => o.kind === "CustomResourceDefinition")) {
      const live = await karmada.get(crd);
      expect(live.status.conditions.find((c: any) => c.type === "Established")?.status).toBe("True");
    }
  });

  test("a second up changes nothing", async () => {
    const steps = recordSteps();
    const result = await fx.stack.up({ onEvent: steps.onEvent });
    expect(Object.keys(result.summary.resourceChanges ?? {})).toEqual(["same"]);
    expect(describeChanges(steps.steps)).toEqual([]);
  });

  test("a new scheduler image previews as an update of the scheduler Deployment only", async () => {
    const image = `${resolveImage("karmada-scheduler", findRelease(DEFAULT_KARMADA_VERSION))}-e2e`;
    await fx.configure({ components: { scheduler: { image } } });
    try {
      const steps = recordSteps();
      const preview = await fx.stack.preview({ onEvent: steps.onEvent });
      expect(describeChanges(steps.steps)).toEqual([
        `kubernetes:apps/v1:Deployment ${SCHEDULER_DEPLOYMENT}: update`,
      ]);
      expect(preview.changeSummary).toEqual({ same: expect.any(Number), update: 1 });

      // the PR summary of the same preview, through the script CI runs
      const out = path.join(fx.engine.dir, "summary");
      const markdown = execFileSync(
        path.join(REPO_ROOT, "node_modules", ".bin", "ts-node"),
        [
          "--transpile-only",
          path.join(REPO_ROOT, "scripts", "preview-summary.ts"),
          "--stack",
          fx.stack.name,
          "--cwd",
          fx.stack.workspace.workDir,
          "--json-out",
          `${out}.json`,
          "--markdown-out",
          `${out}.md`,
        ],
        { env: { ...process.env, ...fx.engine.env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      );
      expect(markdown).toContain("| KarmadaControlPlane `karmada` | 0 | 1 | 0 | 0 | 0 |");
      expect(markdown).toContain(
        `- \`Deployment\` **${SCHEDULER_DEPLOYMENT}** — changes: \`spec.template.spec.containers[0].image\``,
      );
      expect(markdown).toContain("**0 to create · 1 to update · 0 to replace · 0 to delete**");
    } finally {
      await fx.configure();
    }
  });

  /** The Karmada providers' identities: renewed on their own schedule, never by a generation bump. */
  const isProviderSlot = (urn: string) => /-provider-[ab]-(cert|key|csr)$/.test(urn);
  /**
   * Control-plane leaves a generation bump renews, as key, CSR and certificate URNs
   * (`<name>-<leaf>-key|-csr|-cert`): all but the provider slots.
   */
  const leafResources = (resources: readonly StateResource[]) =>
    new Set([...leafCertificateResources(resources, inControlPlane)].filter((urn) => !isProviderSlot(urn)));

  test("rotation preview (generation bumped): leaves replaced, their Secrets and the workloads mounting them rewritten; the Karmada provider and every object inside Karmada diffed and unchanged; CAs and sa-key untouched", async () => {
    const resources = await stateResources(fx.stack);
    const leaves = leafResources(resources);
    expect(leaves.size).toBeGreaterThan(0);
    const inKarmada = new Set(
      kubeObjectsInState(resources)
        .filter((o) => o.providerName === "karmada-karmada")
        .map((o) => o.urn),
    );
    await fx.configure({ pki: { rotation: { generation: 1 } } });
    try {
      const steps = recordSteps();
      await fx.stack.preview({ onEvent: steps.onEvent });
      const changed = changedResources(steps.steps);
      const typeOf = (urn: string) => steps.steps.find((s) => s.urn === urn)!.type;
      const replaces = (ops: string[]) => ops.some((op) => op.includes("replace"));
      const allowed = ([urn, ops]: [string, string[]]) =>
        (leaves.has(urn) && replaces(ops)) ||
        // the kubernetes provider replaces a Secret whose data changes (unless enableSecretMutable)
        (typeOf(urn) === "kubernetes:core/v1:Secret" && inControlPlane(urn)) ||
        // the pod template's certificates checksum rolls the workload onto the renewed certificates
        (typeOf(urn) === "kubernetes:apps/v1:Deployment" && inControlPlane(urn) && ops.join() === "update");
      const unexpected = [...changed.entries()]
        .filter((entry) => !allowed(entry))
        .map(([urn, ops]) => `${urn}: ${ops}`);
      expect(unexpected).toEqual([]);
      // the provider for karmada-apiserver keeps its slot's kubeconfig: the engine diffs every object
      // inside Karmada (no "diff unavailable") and finds nothing to change
      expect([...steps.diffUnavailable]).toEqual([]);
      expect(inKarmada.size).toBeGreaterThan(10);
      expect(
        [...changed.keys()].filter((urn) => inKarmada.has(urn) || urn.endsWith("::karmada-karmada")),
      ).toEqual([]);
      expect(resources.filter((r) => isProviderSlot(r.urn)).length).toBe(6);
      expect([...changed.keys()].filter(isProviderSlot)).toEqual([]);
      expect([...leaves].filter((urn) => !replaces(changed.get(urn) ?? []))).toEqual([]);
      // every control-plane workload mounts a renewed certificate; etcd's (not rotated) stays
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
      await fx.configure();
    }
  });

  test("rotation up: objects inside Karmada stay as they are; each control-plane workload rolls (new certificates checksum), etcd does not; the new admin kubeconfig works", async () => {
    const before = await stateResources(fx.stack);
    const inKarmada = new Set(
      kubeObjectsInState(before)
        .filter((o) => o.providerName === "karmada-karmada")
        .map((o) => o.urn),
    );
    const oldKubeconfig = (await fx.stack.outputs()).adminKubeconfig.value;
    const schedulerChecksum = (
      await host.get({
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: NAMESPACE,
        name: "karmada-scheduler",
      })
    ).spec.template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION];
    expect(schedulerChecksum).toMatch(/^[0-9a-f]{64}$/);
    await fx.configure({ pki: { rotation: { generation: 1 } } });
    const steps = recordSteps();
    const result = await fx.stack.up({ onEvent: steps.onEvent });
    expect(result.summary.result).toBe("succeeded");
    const changed = changedResources(steps.steps);
    expect([...changed.keys()].filter((urn) => inKarmada.has(urn))).toEqual([]);
    const workloads = before.filter((r) => /:apps\/v1:(Deployment|StatefulSet)$/.test(r.type));
    expect(workloads.filter((r) => inControlPlane(r.urn)).length).toBeGreaterThan(0);
    expect(
      workloads.filter((r) => inControlPlane(r.urn) !== (changed.get(r.urn)?.join() === "update")),
    ).toEqual([]);
    // on the host cluster: the pod template carries the digest of the renewed certificates
    const checksumOf = async (name: string) =>
      (await host.get({ apiVersion: "apps/v1", kind: "Deployment", namespace: NAMESPACE, name })).spec
        .template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION];
    expect(await checksumOf("karmada-scheduler")).not.toBe(schedulerChecksum);
    expect(await checksumOf("karmada-scheduler")).toMatch(/^[0-9a-f]{64}$/);
    expect([...leafResources(before)].filter((urn) => !changed.has(urn))).toEqual([]);
    const kubeconfig = (await fx.stack.outputs()).adminKubeconfig.value;
    expect(kubeconfig).not.toBe(oldKubeconfig);
    expect(
      (await apiRequest(credentialsFromKubeconfig(kubeconfig), "GET", `/api/v1/namespaces/${NAMESPACE}`))
        .status,
    ).toBe(200);
  });

  test("drift: a controller Deployment deleted and a flag's value edited by hand (kubectl edit); `refresh` shows exactly those, `up` puts both back", async () => {
    const deployment = (name: string) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: NAMESPACE,
      name,
    });
    const objectPath = (name: string) => `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${name}`;
    const planned = await host.get(deployment("karmada-scheduler"));
    const plannedArgs: string[] = planned.spec.template.spec.containers[0].args;
    // kubectl edit: an update by another field manager
    const edited = structuredClone(planned);
    // a value changed in place: pulumi-kubernetes compares the live object pruned to the shape of the
    // planned one, so an argument appended at the end would not show (docs/operations.md says so)
    expect(plannedArgs).toContain("--leader-elect=true");
    edited.spec.template.spec.containers[0].args = plannedArgs.map((a) =>
      a === "--leader-elect=true" ? "--leader-elect=false" : a,
    );
    const put = await apiRequest(
      fx.host.credentials,
      "PUT",
      `${objectPath("karmada-scheduler")}?fieldManager=kubectl-edit`,
      edited,
    );
    expect(put.status).toBe(200);
    const deleted = await apiRequest(fx.host.credentials, "DELETE", objectPath("karmada-controller-manager"));
    expect(deleted.status).toBe(200);
    await waitFor(
      "the controller manager Deployment gone",
      async () => (await host.get(deployment("karmada-controller-manager"))) === undefined,
      60_000,
    );

    const refreshed: { name: string; type: string; changed: boolean }[] = [];
    const beforeRefresh = await stateResources(fx.stack);
    await fx.stack.refresh({
      onEvent: (e) => {
        const md = e.resOutputsEvent?.metadata;
        if (md)
          refreshed.push({
            name: parseUrn(md.urn).name,
            type: md.type,
            changed: JSON.stringify(md.old?.outputs) !== JSON.stringify(md.new?.outputs),
          });
      },
    });
    const after = new Set((await stateResources(fx.stack)).map((r) => r.urn));
    expect(
      beforeRefresh.filter((r) => !after.has(r.urn)).map((r) => `${r.type} ${parseUrn(r.urn).name}`),
    ).toEqual([`kubernetes:apps/v1:Deployment ${CONTROLLER_MANAGER_DEPLOYMENT}`]);
    const scheduler = refreshed.find((r) => r.name === SCHEDULER_DEPLOYMENT)!;
    expect(scheduler.changed).toBe(true);

    const steps = recordSteps();
    const result = await fx.stack.up({ onEvent: steps.onEvent });
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
    expect(await host.get(deployment("karmada-controller-manager"))).toBeDefined();
    // one of each, and a further `up` is quiet
    const names = await listNames(fx.host.credentials, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`);
    expect(names.filter((n) => n === "karmada-controller-manager")).toEqual(["karmada-controller-manager"]);
    const again = recordSteps();
    await fx.stack.up({ onEvent: again.onEvent });
    expect(describeChanges(again.steps)).toEqual([]);
  });

  test("destroy removes everything but the data: etcd's namespace and claims, the objects inside Karmada", async () => {
    const result = await fx.stack.destroy();
    expect(result.summary.result).toBe("succeeded");
    expect((await stateResources(fx.stack)).filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);

    const retained = deployed.filter(
      (o) => o.providerName === "host" && o.kind === "Namespace" && o.name === NAMESPACE,
    );
    expect(retained).toHaveLength(1);
    const ns = await host.get(retained[0]);
    expect(ns.status.phase).toBe("Active");
    expect(
      await listNames(fx.host.credentials, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`),
    ).toEqual(etcdClaims);
    expect(await listNames(fx.host.credentials, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`)).toEqual(
      [],
    );

    karmada.reset();
    const onHost = deployed.filter((o) => o.providerName === "host" && o !== retained[0]);
    expect((await lookUp(onHost)).present).toEqual([]);
    // deleted with the control plane, not one by one: they stay in karmada-apiserver's etcd with its
    // data (deleting a CRD would delete every Karmada object of its kind)
    const inKarmada = deployed.filter((o) => o.providerName === "karmada-karmada");
    expect(inKarmada.filter((o) => o.kind === "CustomResourceDefinition").length).toBeGreaterThan(0);
    expect((await lookUp(inKarmada)).missing).toEqual([]);
  });
});
