/**
 * Push- and pull-mode member-side objects against real kube-apiservers: applied as this library
 * generates them, the token controller fills the token, the token authenticates as the ServiceAccount
 * with the role's permissions, and removal in the documented order leaves no credential behind.
 * Needs only the members' kubeconfigs: TESTBED_MEMBER_KUBECONFIGS, a list of kubeconfig paths separated
 * by the path delimiter (":"). The API servers need the token controller (kube-controller-manager).
 */
import { delimiter } from "node:path";
import { resolveMemberSettings } from "../../../lib/members/config";
import { agentMemberObjects } from "../../../lib/members/pull";
import { memberCredentialObjects, secretDataValue, tokenSecretObject } from "../../../lib/members/push";
import { KubeClient, objectPath } from "./kubeClient";

jest.setTimeout(300_000);

const kubeconfigs = (process.env.TESTBED_MEMBER_KUBECONFIGS ?? "").split(delimiter).filter(Boolean);
if (kubeconfigs.length === 0) {
  console.warn(
    "SKIPPING member registration against real kube-apiservers: TESTBED_MEMBER_KUBECONFIGS is unset " +
      "(set it to the member kubeconfig paths, separated by ':', once the test bed provides API servers)",
  );
}
const maybe = kubeconfigs.length ? describe : describe.skip;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

async function applyAll(client: KubeClient, objects: any[]): Promise<void> {
  for (const obj of objects) {
    const res = await client.apply(obj);
    expect([200, 201]).toContain(res.status);
  }
}

async function removeAll(client: KubeClient, objects: any[]): Promise<void> {
  for (const obj of [...objects].reverse()) {
    const res = await client.request("DELETE", objectPath(obj));
    expect([200, 202, 404]).toContain(res.status);
  }
  for (const obj of objects) {
    await waitFor(`${obj.kind} ${obj.metadata.name} to be gone`, async () =>
      (await client.request("GET", objectPath(obj))).status === 404 ? true : undefined,
    );
  }
}

const table = kubeconfigs.length ? kubeconfigs.map((path, i) => [`member ${i}`, path]) : [["no member", ""]];
maybe.each(table)("%s (%s)", (_, path) => {
  let client: KubeClient;
  const clusterName = `testbed-${process.pid}`;
  beforeAll(() => {
    client = new KubeClient(path);
  });

  it("push: the member token works with the role's permissions and removal leaves no credential", async () => {
    const settings = resolveMemberSettings({
      clusterName,
      mode: "Push",
      apiEndpoint: "https://member.invalid",
    });
    const objects = memberCredentialObjects(settings);
    const tokenSecret = tokenSecretObject(objects.tokens.credential);
    const all = [
      ...objects.namespace,
      ...objects.access,
      tokenSecret,
      tokenSecretObject(objects.tokens.impersonator),
    ];
    await applyAll(client, all);
    const token = await waitFor("the token controller", async () => {
      const res = await client.request("GET", objectPath(tokenSecret));
      return res.body?.data?.token ? secretDataValue(res.body.data, "token", "token secret") : undefined;
    });
    const asKarmada = client.withToken(path, token);
    const review = await asKarmada.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: {
        resourceAttributes: { verb: "create", group: "apps", resource: "deployments", namespace: "default" },
      },
    });
    expect(review.body.status.allowed).toBe(true);
    await removeAll(client, all);
    expect((await asKarmada.request("GET", "/api/v1/namespaces")).status).toBe(401);
  });

  it("pull: the agent's objects apply as generated and are removed in order", async () => {
    const settings = resolveMemberSettings({
      clusterName,
      mode: "Pull",
      apiEndpoint: "https://member.invalid",
      pull: { namespace: `karmada-agent-${process.pid}` },
    });
    const objects = agentMemberObjects(settings, {
      image: "registry.invalid/karmada-agent:v0",
      imagePullPolicy: "IfNotPresent",
      awaitRollout: false,
      rotationTrigger: "testbed",
    });
    const all = [...objects.namespace, ...objects.access, ...objects.deployment];
    await applyAll(client, all);
    const live = await client.request("GET", objectPath(objects.deployment[0]));
    expect(live.body.spec.template.spec.containers[0].command[0]).toBe("/bin/karmada-agent");
    await removeAll(client, all);
  });
});
