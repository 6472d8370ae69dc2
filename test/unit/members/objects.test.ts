import fc from "fast-check";
import type { KubeObject } from "../../../lib/kube/object";
import { agentIdentityObjects } from "../../../lib/members/bootstrap";
import { MemberRegistrationConfig } from "../../../lib/members/config";
import { resolveMemberSettings } from "../../../lib/members/resolve";
import { MemberObjectGroups, memberObjects } from "../../../lib/members/objects";
import { AgentWorkload } from "../../../lib/members/pull";
import { validateMemberConfig } from "../../../lib/members/validate";
import { configErrorsOf } from "../../../lib/validation/errors";

const WORKLOAD: AgentWorkload = {
  image: "registry.invalid/karmada-agent:v1",
  imagePullPolicy: "IfNotPresent",
  awaitRollout: true,
  rotationTrigger: "window=1/0;generation=0",
};

/** Every object and Secret of a member, with the side it is created on. */
function everything(groups: MemberObjectGroups): { side: "karmada" | "member"; obj: KubeObject }[] {
  const secret = (p: { name: string; namespace: string }): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: p.name, namespace: p.namespace },
  });
  const c = groups.credentials;
  const a = groups.agent;
  const karmada: KubeObject[] = [
    ...groups.karmada.executionNamespace,
    ...groups.karmada.rbac,
    ...(groups.tokenCopies
      ? [secret(groups.tokenCopies.credential), secret(groups.tokenCopies.impersonator)]
      : []),
    groups.cluster,
  ];
  const member: KubeObject[] = [
    ...(c ? [...c.namespace, ...c.accounts, ...c.roles, c.tokens.credential, c.tokens.impersonator] : []),
    ...(a ? [...a.namespace, ...a.access, secret(a.kubeconfigSecret), ...a.deployment] : []),
  ];
  return [
    ...karmada.map((obj) => ({ side: "karmada" as const, obj })),
    ...member.map((obj) => ({ side: "member" as const, obj })),
  ];
}

const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

describe("a member's objects, grouped by side", () => {
  it("push: the member's credentials, Karmada's copies of their tokens and the Cluster — nothing of an agent", () => {
    const settings = resolveMemberSettings({
      clusterName: "m1",
      mode: "Push",
      apiEndpoint: "https://m1:6443",
    });
    const groups = memberObjects(settings);
    expect(groups.karmada).toEqual({ executionNamespace: [], rbac: [] });
    expect(groups.agent).toBeUndefined();
    expect(groups.credentials!.accounts.map((o) => o.metadata.name)).toEqual([
      "karmada-m1",
      "karmada-impersonator",
    ]);
    expect(groups.credentials!.roles.map((o) => o.kind)).toEqual(["ClusterRole", "ClusterRoleBinding"]);
    // each token Secret is named after its account and filled by the member's token controller
    const tokens = groups.credentials!.tokens;
    expect(tokens.credential.metadata.annotations).toMatchObject({
      "kubernetes.io/service-account.name": "karmada-m1",
    });
    expect(tokens.impersonator.type).toBe("kubernetes.io/service-account-token");
    expect(groups.tokenCopies).toEqual({
      credential: { name: "m1", namespace: "karmada-cluster", labels: { "karmada.io/system": "true" } },
      impersonator: {
        name: "m1-impersonator",
        namespace: "karmada-cluster",
        labels: { "karmada.io/system": "true" },
      },
    });
    // the Cluster refers to exactly those copies; a push Cluster is ours alone (no forced fields)
    expect(groups.cluster.spec).toMatchObject({
      secretRef: { namespace: "karmada-cluster", name: groups.tokenCopies!.credential.name },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: groups.tokenCopies!.impersonator.name },
    });
    expect(groups.cluster.metadata.annotations).toBeUndefined();
  });

  it("pull: the agent's RBAC inside Karmada after its execution namespace, the agent in the member, our fields win on the Cluster", () => {
    const settings = resolveMemberSettings({
      clusterName: "m2",
      mode: "Pull",
      apiEndpoint: "https://m2:6443",
    });
    const groups = memberObjects(settings, WORKLOAD);
    expect(groups.karmada.executionNamespace.map(key)).toEqual(["Namespace//karmada-es-m2"]);
    // the work Role lives in the execution namespace, which is why that namespace is a group of its own
    expect(groups.karmada.rbac.filter((o) => o.kind === "Role").map((o) => o.metadata.namespace)).toEqual([
      "karmada-cluster",
      "karmada-es-m2",
    ]);
    expect(groups.agent!.kubeconfigSecret).toEqual({
      name: "karmada-kubeconfig",
      namespace: "karmada-system",
      labels: { "karmada.io/system": "true" },
    });
    const deployment = groups.agent!.deployment[0] as any;
    expect(deployment.spec.template.spec.volumes[0].secret.secretName).toBe(
      groups.agent!.kubeconfigSecret.name,
    );
    expect(deployment.spec.template.metadata.annotations).toEqual({
      "karmada.pulumi.com/credential-rotation": WORKLOAD.rotationTrigger,
    });
    expect(groups.cluster.metadata.annotations).toEqual({ "pulumi.com/patchForce": "true" });
    // reported credentials (the default): the same member-side accounts as push
    expect(groups.credentials!.accounts.map((o) => o.metadata.name)).toEqual([
      "karmada-m2",
      "karmada-impersonator",
    ]);
  });

  it("pull without reported credentials: no accounts, no token copies, no Secret references", () => {
    const settings = resolveMemberSettings({
      clusterName: "m3",
      mode: "Pull",
      apiEndpoint: "https://m3:6443",
      pull: { reportSecrets: false, createNamespace: false, namespace: "agents" },
    });
    const groups = memberObjects(settings, WORKLOAD);
    expect(groups.credentials).toBeUndefined();
    expect(groups.tokenCopies).toBeUndefined();
    expect(groups.agent!.namespace).toEqual([]);
    expect(groups.agent!.kubeconfigSecret.namespace).toBe("agents");
    expect(groups.cluster.spec).not.toHaveProperty("secretRef");
  });

  it("refuses a pull member without its agent's workload", () => {
    const settings = resolveMemberSettings({
      clusterName: "m4",
      mode: "Pull",
      apiEndpoint: "https://m4:6443",
    });
    expect(() => memberObjects(settings)).toThrow(/member m4: pull mode needs the agent workload/);
  });

  it("every valid registration: each object in one group, on one side, under one name", () => {
    const config = fc.record(
      {
        clusterName: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/),
        mode: fc.constantFrom("Push" as const, "Pull" as const),
        apiEndpoint: fc.constant("https://member.example:6443"),
        credentialsNamespace: fc.constantFrom(undefined, "karmada-cluster", "creds"),
        pull: fc.record(
          {
            reportSecrets: fc.boolean(),
            createNamespace: fc.boolean(),
            namespace: fc.constantFrom("karmada-system", "agents", "karmada-cluster"),
            identity: fc.constantFrom("direct" as const, "bootstrapToken" as const),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ["clusterName", "mode", "apiEndpoint"] },
    );
    fc.assert(
      fc.property(config, (raw) => {
        const input = {
          ...raw,
          // push only: a pull member's credentials live in karmada-cluster
          credentialsNamespace: raw.mode === "Push" ? raw.credentialsNamespace : undefined,
          pull: raw.mode === "Pull" ? raw.pull : undefined,
        } as MemberRegistrationConfig;
        try {
          validateMemberConfig(input);
        } catch (error) {
          // the one overlap validation refuses: the agent in the namespace of the credentials it reports
          expect(configErrorsOf(error).map((e) => e.field)).toEqual(["pull.namespace"]);
          expect(input.pull).toMatchObject({ namespace: "karmada-cluster" });
          expect(input.pull!.reportSecrets).not.toBe(false);
          return;
        }
        const settings = resolveMemberSettings(input);
        const all = everything(memberObjects(settings, settings.pull && WORKLOAD));
        // a namespace both sides hold (karmada-cluster) is one object per side, never twice on one side
        for (const side of ["karmada", "member"] as const) {
          const keys = all.filter((x) => x.side === side).map((x) => key(x.obj));
          expect(new Set(keys).size).toBe(keys.length);
        }
        // everything carries karmadactl's names, derived from the cluster name once
        const names = all.map((x) => x.obj.metadata.name);
        expect(names).toContain(settings.clusterName);
        if (settings.mode === "Pull") expect(names).toContain(settings.names.executionNamespace);
      }),
      { numRuns: 200 },
    );
  });
});

describe("the agent's identity", () => {
  const pull = (identity: "direct" | "bootstrapToken", credentialGeneration = 0) =>
    resolveMemberSettings({
      clusterName: "edge-1",
      mode: "Pull",
      apiEndpoint: "https://edge-1:6443",
      credentialGeneration,
      pull: { identity, bootstrapTokenTtlHours: 2, certValidityHours: 720 },
    });
  const now = Date.UTC(2026, 10, 29, 12);

  it("direct: the agent's certificate and kubeconfig names only", () => {
    const objects = agentIdentityObjects(pull("direct"), now);
    expect(objects.certificate.commonName).toBe("system:karmada:agent:edge-1");
    expect(objects.certificate.organizations).toEqual(["system:karmada:agents"]);
    expect(objects.kubeconfigNames).toEqual({
      clusterName: "karmada-apiserver",
      userName: "edge-1",
      contextName: "edge-1@karmada-apiserver",
    });
    expect(objects.bootstrapToken).toBeUndefined();
  });

  it("bootstrapToken: the token Secret without its secret half, expiring ttl hours later, and a CSR per key", () => {
    const token = agentIdentityObjects(pull("bootstrapToken"), now).bootstrapToken!;
    expect(token.tokenId).toMatch(/^[a-z0-9]{6}$/);
    expect(token.secret).toEqual({
      name: `bootstrap-token-${token.tokenId}`,
      namespace: "kube-system",
      type: "bootstrap.kubernetes.io/token",
    });
    expect(token.data).not.toHaveProperty("token-secret");
    expect(token.data).toMatchObject({
      "token-id": token.tokenId,
      expiration: "2026-11-29T14:00:00Z",
      "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
    });
    expect(token.csr.spec).toMatchObject({ expirationSeconds: 720 * 3600, request: "" });
    expect(token.csr.metadata.name).toMatch(/^edge-1-[0-9a-f]{5}$/);
    // the same generation and window: the same token id and CSR (a no-change `up` stays a no-op)
    const again = agentIdentityObjects(pull("bootstrapToken"), now + 60_000).bootstrapToken!;
    expect([again.tokenId, again.csr.metadata.name]).toEqual([token.tokenId, token.csr.metadata.name]);
    // a credential rotation: a new token and a new CSR (CSRs are immutable)
    const rotated = agentIdentityObjects(pull("bootstrapToken", 1), now).bootstrapToken!;
    expect(rotated.tokenId).not.toBe(token.tokenId);
    expect(rotated.csr.metadata.name).not.toBe(token.csr.metadata.name);
    expect(rotated.rotationTrigger).toMatch(/generation=1$/);
  });
});
