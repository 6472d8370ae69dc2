/**
 * Push- and pull-mode member-side objects against real kube-apiservers (two loopback clusters of this
 * suite's own, on 127.0.7.x): created as this library generates them, the token controller fills the
 * token, the token authenticates as the ServiceAccount with the role's permissions, and removal in the
 * documented order leaves no credential behind.
 */
import { resolveMemberSettings } from "../../lib/members/resolve";
import { secretDataValue } from "../../lib/members/credentials";
import { memberObjects } from "../../lib/members/objects";
import type { KubeObject } from "../../lib/kube/apply";
import { e2eTier } from "../../devkit/engine/tier";
import { ApiCredentials, LoopbackCluster, ObjectLocator, startCluster, waitFor } from "../../devkit/kube";
import { callApi } from "../../lib/kube/rest";

jest.setTimeout(300_000);

const tier = e2eTier("member-side objects on real API servers (test/e2e/member-objects.test.ts)", {
  binaries: ["etcd", "kube-apiserver", "kube-controller-manager"],
});

/** The two members; 127.0.7.x is this suite's own range, so it runs beside the other e2e suites. */
const MEMBERS = [
  { name: "member-a", address: "127.0.7.10" },
  { name: "member-b", address: "127.0.7.11" },
] as const;

const refOf = (obj: KubeObject) => ({
  apiVersion: obj.apiVersion,
  kind: obj.kind,
  name: obj.metadata.name,
  namespace: obj.metadata.namespace,
});

/** Creates each object as generated (POST to its collection); every one must be accepted. */
async function createAll(creds: ApiCredentials, locate: ObjectLocator, objects: KubeObject[]): Promise<void> {
  for (const obj of objects) {
    const objectPath = await locate.path(refOf(obj));
    const res = await callApi(creds, "POST", objectPath.slice(0, objectPath.lastIndexOf("/")), obj);
    expect({ object: objectPath, status: res.status, message: res.body?.message }).toEqual({
      object: objectPath,
      status: 201,
      message: undefined,
    });
  }
}

/** Deletes in reverse order, then waits until every object is gone (namespaces are finalized). */
async function removeAll(creds: ApiCredentials, locate: ObjectLocator, objects: KubeObject[]): Promise<void> {
  for (const obj of [...objects].reverse()) {
    const res = await callApi(creds, "DELETE", await locate.path(refOf(obj)));
    expect([200, 202, 404]).toContain(res.status);
  }
  for (const obj of objects) {
    await waitFor(
      `${obj.kind} ${obj.metadata.name} to be gone`,
      async () => (await locate.get(refOf(obj))) === undefined,
      60_000,
    );
  }
}

/** What the API server's authenticator makes of a bearer token (a TokenReview, asked as admin). */
async function reviewToken(
  creds: ApiCredentials,
  token: string,
): Promise<{ authenticated?: boolean; user?: { username: string; groups: string[] } }> {
  const res = await callApi(creds, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    spec: { token },
  });
  expect(res.status).toBe(201);
  return res.body.status;
}

tier.describe("member-side objects on real API servers", () => {
  const clusters: LoopbackCluster[] = [];
  beforeAll(async () => {
    // one after the other: two starting API servers at once overload a 2-core machine
    for (const member of MEMBERS) clusters.push(await startCluster(member));
  });
  afterAll(async () => {
    for (const cluster of clusters) await cluster.stop();
  });

  describe.each(MEMBERS.map((m, i) => [m.name, i] as const))("%s", (_, index) => {
    const creds = () => clusters[index].credentials;
    let locate: ObjectLocator;
    beforeAll(() => {
      locate = new ObjectLocator(creds());
    });

    it("push: the member token works with the role's permissions and removal leaves no credential", async () => {
      const settings = resolveMemberSettings({
        clusterName: `testbed-${index}`,
        mode: "Push",
        apiEndpoint: "https://member.invalid",
      });
      const objects = memberObjects(settings).credentials!;
      const tokenSecret = objects.tokens.credential;
      const all = [
        ...objects.namespace,
        ...objects.accounts,
        ...objects.roles,
        tokenSecret,
        objects.tokens.impersonator,
      ];
      await createAll(creds(), locate, all);

      let token = "";
      await waitFor(
        "the token controller to fill the token Secret",
        async () => {
          const secret = await locate.get(refOf(tokenSecret));
          if (!secret?.data?.token) return false;
          token = secretDataValue(secret.data, "token", "token secret");
          return true;
        },
        60_000,
      );
      // the API server checks a legacy token against its cached copy of the Secret, a moment behind the write
      let review = await reviewToken(creds(), token);
      await waitFor(
        "the token authenticated",
        async () => (review = await reviewToken(creds(), token)).authenticated === true,
        30_000,
      );
      expect(review.authenticated).toBe(true);
      const serviceAccount = objects.accounts[0];
      expect(review.user!.username).toBe(
        `system:serviceaccount:${serviceAccount.metadata.namespace}:${serviceAccount.metadata.name}`,
      );
      // what that identity may do, as the API server's authorizer decides for it
      const access = await callApi(creds(), "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: review.user!.username,
          groups: review.user!.groups,
          resourceAttributes: {
            verb: "create",
            group: "apps",
            resource: "deployments",
            namespace: "default",
          },
        },
      });
      expect(access.body.status.allowed).toBe(true);

      await removeAll(creds(), locate, all);
      // the API server caches a successful token authentication for 10 s
      await waitFor(
        "the removed ServiceAccount's token to be rejected",
        async () => (await reviewToken(creds(), token)).authenticated !== true,
        30_000,
        1_000,
      );
    });

    it("pull: the agent's objects are accepted as generated and removed in order", async () => {
      const settings = resolveMemberSettings({
        clusterName: `testbed-${index}`,
        mode: "Pull",
        apiEndpoint: "https://member.invalid",
        pull: { namespace: "karmada-agent-testbed" },
      });
      const objects = memberObjects(settings, {
        image: "registry.invalid/karmada-agent:v0",
        imagePullPolicy: "IfNotPresent",
        awaitRollout: false,
        rotationTrigger: "testbed",
      }).agent!;
      const all = [...objects.namespace, ...objects.access, ...objects.deployment];
      await createAll(creds(), locate, all);
      const live = await locate.get(refOf(objects.deployment[0]));
      expect(live.spec.template.spec.containers[0].command[0]).toBe("/bin/karmada-agent");
      await removeAll(creds(), locate, all);
    });
  });
});
