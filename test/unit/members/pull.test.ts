import * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";
import { find } from "../../support/mocks";
import {
  buildMemberEstate,
  childrenOf,
  componentOf,
  MemberEstate,
  objectsOf,
  through,
  transitiveDependencies,
} from "./estate";
import { simulatedMemberCa, simulatedSignedCert, simulatedToken, unb64 } from "./simulate";
import { currentRecordingMocks } from "../../../devkit/mocks";

const AGENT_USER = (c: string) => ({
  apiGroup: "rbac.authorization.k8s.io",
  kind: "User",
  name: `system:karmada:agent:${c}`,
});

describe("MemberRegistration, pull mode (karmadactl register)", () => {
  let estate: MemberEstate;
  const parts = (cluster: string) => {
    const mine = childrenOf(estate.records, componentOf(estate.records, cluster));
    return { mine, objects: objectsOf(mine) };
  };

  beforeAll(async () => {
    estate = await buildMemberEstate(
      [
        {
          clusterName: "direct",
          mode: "Pull",
          apiEndpoint: "https://direct.example.com:6443",
          region: "r1",
          pull: { replicas: 2, extraArgs: { "kube-api-qps": "80" } },
        },
        {
          clusterName: "token",
          mode: "Pull",
          apiEndpoint: "https://token.example.com:6443",
          pull: {
            identity: "bootstrapToken",
            reportSecrets: false,
            karmadaApiEndpoint: "https://10.0.0.9:5443",
          },
        },
      ],
      { images: { registry: "registry.local:5000/mirror" } },
    );
  });

  it("creates the agent's RBAC inside Karmada exactly as karmadactl register names and scopes it", () => {
    const { objects } = parts("direct");
    const karmada = find(estate.records, "pulumi:providers:kubernetes", "karmada-karmada");
    const role = objects.get("ClusterRole//system:karmada:direct:agent")!;
    expect(role.inputs.rules[0]).toEqual({
      apiGroups: ["cluster.karmada.io"],
      resources: ["clusters"],
      resourceNames: ["direct"],
      verbs: ["get", "delete"],
    });
    expect(objects.get("ClusterRoleBinding//system:karmada:direct:agent")!.inputs.subjects).toEqual([
      AGENT_USER("direct"),
    ]);
    const secretRole = objects.get("Role/karmada-cluster/system:karmada:direct:agent-secret")!;
    expect(secretRole.inputs.rules[0].resourceNames).toEqual(["direct", "direct-impersonator"]);
    expect(
      objects.get("RoleBinding/karmada-cluster/system:karmada:direct:agent-secret")!.inputs.subjects,
    ).toEqual([AGENT_USER("direct")]);
    const namespace = objects.get("Namespace//karmada-es-direct")!;
    const workRole = objects.get("Role/karmada-es-direct/system:karmada:direct:agent-work")!;
    expect(workRole.dependencies).toContain(namespace.urn);
    expect(objects.get("RoleBinding/karmada-es-direct/system:karmada:direct:agent-work")).toBeDefined();
    for (const r of [role, secretRole, namespace, workRole]) expect(through(r, karmada)).toBe(true);
  });

  it("runs karmada-agent in the member with karmadactl's names, flags and the catalog image", () => {
    const { objects } = parts("direct");
    const member = find(estate.records, "pulumi:providers:kubernetes", "member-direct");
    for (const key of [
      "Namespace//karmada-system",
      "ServiceAccount/karmada-system/karmada-agent-sa",
      "ClusterRole//karmada-agent",
      "ClusterRoleBinding//karmada-agent",
      "Secret/karmada-system/karmada-kubeconfig",
      "Deployment/karmada-system/karmada-agent",
    ]) {
      expect(through(objects.get(key)!, member)).toBe(true);
    }
    const deployment = objects.get("Deployment/karmada-system/karmada-agent")!.inputs;
    expect(deployment.spec.replicas).toBe(2);
    const pod = deployment.spec.template.spec;
    expect(pod.serviceAccountName).toBe("karmada-agent-sa");
    const container = pod.containers[0];
    expect(container.image).toBe("registry.local:5000/mirror/karmada-agent:v1.18.2");
    expect(container.command).toEqual(
      expect.arrayContaining([
        "/bin/karmada-agent",
        "--karmada-kubeconfig=/etc/kubeconfig/karmada-kubeconfig",
        "--cluster-name=direct",
        "--cluster-api-endpoint=https://direct.example.com:6443",
        "--cluster-region=r1",
        "--cluster-status-update-frequency=10s",
        "--leader-elect-resource-namespace=karmada-system",
        "--kube-api-qps=80",
      ]),
    );
    // karmadactl unregister finds the kubeconfig through flag → mount → volume → Secret
    expect(container.volumeMounts).toContainEqual(
      expect.objectContaining({ name: "kubeconfig", mountPath: "/etc/kubeconfig" }),
    );
    expect(pod.volumes).toContainEqual({ name: "kubeconfig", secret: { secretName: "karmada-kubeconfig" } });
  });

  it("issues the agent identity directly from the Karmada CA into a secret kubeconfig", () => {
    const { mine, objects } = parts("direct");
    const csr = mine.find((r) => r.type === "tls:index/certRequest:CertRequest")!;
    expect(csr.inputs.subject).toEqual({
      commonName: "system:karmada:agent:direct",
      organization: "system:karmada:agents",
    });
    const cert = mine.find((r) => r.type === "tls:index/locallySignedCert:LocallySignedCert")!;
    expect(cert.inputs.caCertPem).toContain("karmada-karmada-ca");
    expect(cert.inputs.allowedUses).toEqual(["digital_signature", "key_encipherment", "client_auth"]);
    const secret = objects.get("Secret/karmada-system/karmada-kubeconfig")!;
    expect(secret.secretPaths).toContain("stringData");
    const kubeconfig = parse(secret.inputs.stringData["karmada-kubeconfig"]);
    expect(kubeconfig.clusters[0].cluster.server).toBe(estate.controlPlane.apiEndpoint);
    expect(kubeconfig.users[0].name).toBe("direct");
    expect(unb64(kubeconfig.users[0].user["client-certificate-data"])).toContain(
      "direct-karmada-agent-client-cert",
    );
  });

  it("creates the member ServiceAccounts the agent reports, unless reportSecrets is off", () => {
    expect(parts("direct").objects.get("ServiceAccount/karmada-cluster/karmada-direct")).toBeDefined();
    const { objects } = parts("token");
    expect(objects.get("ServiceAccount/karmada-cluster/karmada-token")).toBeUndefined();
    const command = objects.get("Deployment/karmada-system/karmada-agent")!.inputs.spec.template.spec
      .containers[0].command;
    expect(command).toContain("--report-secrets=None");
  });

  it("writes Karmada's copies of the reported tokens itself, before the agent starts (the agent never refreshes an existing copy)", () => {
    const { objects } = parts("direct");
    const karmada = find(estate.records, "pulumi:providers:kubernetes", "karmada-karmada");
    const credential = objects.get("Secret/karmada-cluster/direct")!;
    const impersonator = objects.get("Secret/karmada-cluster/direct-impersonator")!;
    const memberToken = objects.get("Secret/karmada-cluster/karmada-direct")!;
    const agent = objects.get("Deployment/karmada-system/karmada-agent")!;
    const agentDeps = transitiveDependencies(estate.records, agent);
    for (const s of [credential, impersonator]) {
      expect(through(s, karmada)).toBe(true);
      expect(s.secretPaths).toContain("stringData");
      expect(s.additionalSecretOutputs).toEqual(expect.arrayContaining(["data", "stringData"]));
      expect(agentDeps.has(s.urn)).toBe(true);
      // the Cluster goes first on delete: the agent made it their owner
      expect(transitiveDependencies(estate.records, objects.get("Cluster//direct")!).has(s.urn)).toBe(true);
    }
    // the tokens are the member token Secrets' (replaced by a credentialGeneration bump), read back
    expect(credential.inputs.stringData).toEqual({
      token: simulatedToken("direct-member-token-karmada-direct"),
      caBundle: simulatedMemberCa(memberToken.provider),
    });
    expect(impersonator.inputs.stringData).toEqual({
      token: simulatedToken("direct-member-token-karmada-impersonator"),
    });
    // none without reported secrets: the Cluster then names no Secret
    const token = parts("token").objects;
    expect(token.get("Secret/karmada-cluster/token")).toBeUndefined();
    expect(token.get("Secret/karmada-cluster/token-impersonator")).toBeUndefined();
  });

  it("goes through a bootstrap token and a CSR in bootstrapToken mode, like karmadactl register", () => {
    const { mine, objects } = parts("token");
    const token = mine.find((r) => r.name === "token-karmada-bootstrap-token-g0")!;
    const id = token.inputs.metadata.name.replace("bootstrap-token-", "");
    expect(id).toMatch(/^[a-z0-9]{6}$/);
    expect(token.inputs.metadata.namespace).toBe("kube-system");
    expect(token.inputs.type).toBe("bootstrap.kubernetes.io/token");
    expect(token.secretPaths).toContain("stringData");
    expect(token.inputs.stringData).toMatchObject({
      "token-id": id,
      "usage-bootstrap-authentication": "true",
      "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
    });
    expect(token.inputs.stringData["token-secret"]).toMatch(/^[a-z0-9]{16}$/);
    const provider = mine.find((r) => r.name === "token-karmada-bootstrap")!;
    expect(provider.secretPaths).toContain("kubeconfig");
    expect(parse(provider.inputs.kubeconfig).users[0].user.token).toBe(
      `${id}.${token.inputs.stringData["token-secret"]}`,
    );
    const csr = mine.find((r) => r.type === "kubernetes:certificates.k8s.io/v1:CertificateSigningRequest")!;
    expect(through(csr, provider)).toBe(true);
    expect(csr.retainOnDelete).toBe(true);
    expect(csr.inputs.spec).toMatchObject({
      signerName: "kubernetes.io/kube-apiserver-client",
      usages: ["digital signature", "key encipherment", "client auth"],
      expirationSeconds: 8760 * 3600,
    });
    expect(csr.inputs.metadata.annotations["pulumi.com/waitFor"]).toBe("jsonpath={.status.certificate}");
    const kubeconfig = parse(
      objects.get("Secret/karmada-system/karmada-kubeconfig")!.inputs.stringData["karmada-kubeconfig"],
    );
    expect(kubeconfig.clusters[0].cluster.server).toBe("https://10.0.0.9:5443");
    expect(unb64(kubeconfig.users[0].user["client-certificate-data"])).toBe(
      simulatedSignedCert("token-karmada-csr"),
    );
  });

  it("declares the Cluster after the agent through an adopting provider made once the Cluster API serves, so it is deleted before the agent", () => {
    for (const cluster of ["direct", "token"]) {
      const { mine, objects } = parts(cluster);
      const obj = objects.get(`Cluster//${cluster}`)!;
      const adopt = mine.find((r) => r.name === `${cluster}-karmada-adopt`)!;
      // provider inputs travel as JSON strings
      expect(adopt.inputs.upsertExistingObjects).toBe("true");
      // configured only once karmada-apiserver serves: a provider that found it unreachable keeps failing
      expect(adopt.dependencies).toContain(
        objectsOf(estate.records).get("APIService//v1alpha1.cluster.karmada.io")!.urn,
      );
      expect(through(obj, adopt)).toBe(true);
      const deps = transitiveDependencies(estate.records, obj);
      expect(deps.has(objects.get("Deployment/karmada-system/karmada-agent")!.urn)).toBe(true);
      expect(deps.has(objectsOf(estate.records).get("APIService//v1alpha1.cluster.karmada.io")!.urn)).toBe(
        true,
      );
    }
  });

  it("drains the Works before the Cluster goes: a drain depending on the Cluster, its Karmada access a secret", () => {
    for (const cluster of ["direct", "token"]) {
      const { mine, objects } = parts(cluster);
      const drain = mine.find(
        (r) =>
          r.name === `${cluster}-karmada-drain` && r.custom && r.type !== "pulumi:providers:pulumi-nodejs",
      )!;
      expect(drain.type).toBe("pulumi-nodejs:dynamic:Resource");
      // deleted before the Cluster (and so before the agent, its RBAC and the execution namespace)
      expect(drain.dependencies).toContain(objects.get(`Cluster//${cluster}`)!.urn);
      expect(drain.inputs).toMatchObject({
        clusterName: cluster,
        namespace: `karmada-es-${cluster}`,
        releaseAtOnce: false,
      });
      // the control plane's provider identity, the same the Karmada provider uses; kept secret
      expect(drain.inputs.api.server).toMatch(/^https:\/\//);
      expect(drain.inputs.api.keyPem).toMatch(/PRIVATE KEY/);
      expect(drain.secretPaths).toContain("api");
      expect(drain.additionalSecretOutputs).toContain("api");
      // its own provider, given no configuration (the default one would get the stack's)
      const provider = mine.find((r) => r.type === "pulumi:providers:pulumi-nodejs")!;
      expect(drain.provider.startsWith(`${provider.urn}::`)).toBe(true);
      expect(provider.inputs).toEqual({});
    }
  });

  it("carries a drain provider module the dynamic-provider host can load, whose diff updates on new credentials and replaces on a new cluster name", async () => {
    const drains = estate.records.filter(
      (r) => r.name.endsWith("-karmada-drain") && r.custom && r.inputs.__provider,
    );
    expect(drains).toHaveLength(2);
    const module = { exports: {} as { handler: () => pulumi.dynamic.ResourceProvider } };
    new Function("exports", "require", "module", drains[0].inputs.__provider)(
      module.exports,
      require,
      module,
    );
    const provider = module.exports.handler();
    expect(Object.keys(provider).sort()).toEqual(["create", "delete", "diff", "update"]);
    const planned = drains[0].inputs;
    expect((await provider.diff!("id", planned, { ...planned })).changes).toBe(false);
    const renewed = { ...planned, api: { ...planned.api, certPem: "renewed" } };
    expect(await provider.diff!("id", planned, renewed)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    // a renamed cluster: the old one's Works are drained first (delete before replace)
    const renamed = { ...planned, clusterName: "other", namespace: "karmada-es-other" };
    expect(await provider.diff!("id", planned, renamed)).toEqual({
      changes: true,
      replaces: ["clusterName", "namespace"],
      deleteBeforeReplace: true,
    });
  });

  it("declares every field karmada-agent writes into the Cluster, so a real agent starts against it", () => {
    // cmd/agent/app generateClusterInControllerPlane; the agent may create a Cluster but not update it
    expect(parts("direct").objects.get("Cluster//direct")!.inputs.spec).toEqual({
      syncMode: "Pull",
      apiEndpoint: "https://direct.example.com:6443",
      id: "uid-direct-member-kube-system",
      secretRef: { namespace: "karmada-cluster", name: "direct" },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: "direct-impersonator" },
      region: "r1",
    });
    // --report-secrets=None: the agent creates no Secrets and sets no references
    expect(parts("token").objects.get("Cluster//token")!.inputs.spec).toEqual({
      syncMode: "Pull",
      apiEndpoint: "https://token.example.com:6443",
      id: "uid-token-member-kube-system",
    });
  });

  it("takes spec.id from the member's kube-system Namespace, read through the member's provider", () => {
    for (const cluster of ["direct", "token"]) {
      const obj = parts(cluster).objects.get(`Cluster//${cluster}`)!;
      const member = find(estate.records, "pulumi:providers:kubernetes", `member-${cluster}`);
      const read = currentRecordingMocks()!.reads.find((r) => r.name === `${cluster}-member-kube-system`)!;
      expect(read).toMatchObject({ type: "kubernetes:core/v1:Namespace", id: "kube-system" });
      expect(read.provider.startsWith(`${member.urn}::`)).toBe(true);
      // a child of the registration: `<component type>$<type>::<name>`
      const componentUrn = componentOf(estate.records, cluster).urn;
      const readUrn = `${componentUrn.slice(0, componentUrn.lastIndexOf("::"))}$${read.type}::${read.name}`;
      // an edge of the graph (dependsOn and the spec's input), not a managed resource
      expect(obj.dependencies).toContain(readUrn);
      expect(obj.inputDependencies).toContain(readUrn);
      expect(estate.records.some((r) => r.name === read.name)).toBe(false);
    }
  });
});
