/**
 * Property: every generated configuration — valid values mixed with hostile ones (bad strings, NaN,
 * huge and fractional numbers, wrong types, unknown keys, owned or odd flags, bad label keys, bad
 * quantities …) — is either rejected with field-named ConfigErrors (every field a non-empty path that
 * exists in the input, or names a missing key under an existing object), or produces manifests that the
 * test bed's real kube-apiserver accepts in a server-side dry run (apply, `dryRun=All`,
 * `fieldValidation=Strict`). Never a TypeError, never an unhandled rejection.
 *
 * Pipelines, as the components run them: control plane (containerized and hosts mode) → host workloads
 * + the core-kind objects inside karmada-apiserver; in-cluster etcd; member registration (push and pull
 * objects in the member, core-kind agent objects inside Karmada, with a bootstrap token its Secret and
 * CertificateSigningRequest); built-in addons and the scheduler estimator. One API server for the
 * file, on 127.0.9.x (this suite's range).
 */
import { certificatesChecksum } from "../../lib/pki/checksum";
import fc from "fast-check";
import { CONTROL_PLANE_BUILTINS, ControlPlaneBuiltin } from "../../lib/addons/config";
import { validateAddonConfig } from "../../lib/addons/validate";
import {
  builtinApiObjects,
  builtinCertificates,
  builtinSettings,
  builtinWorkloads,
} from "../../lib/addons/builtins";
import { ESTIMATOR_OWNED_FLAGS, estimatorCertificate, estimatorManifests } from "../../lib/addons/estimator";
import { RELEASES } from "../../lib/catalog/releases";
import { COMPONENT_KEYS, ComponentKey } from "../../lib/controlplane/config";
import { resolveControlPlaneSettings } from "../../lib/controlplane/resolve";
import { externalApiServerUrl } from "../../lib/controlplane/endpoint";
import { CONTROL_PLANE_OWNED_FLAGS } from "../../lib/controlplane/flags-owned";
import { ControlPlaneComponent } from "../../lib/controlplane/flags-ports";
import {
  hostsCertificates,
  hostsKarmadaApiOptions,
  hostsOwnedFlags,
  planControlPlaneHosts,
  POD_ONLY_FIELDS,
  resolveControlPlaneMode,
  SERVICE_ONLY_FIELDS,
} from "../../lib/controlplane/hosts";
import { ControlPlaneSettings } from "../../lib/controlplane/settings";
import { ETCD_OWNED_FLAGS } from "../../lib/etcd/flags-owned";
import { resolveEtcdInClusterSettings } from "../../lib/etcd/resolve";
import type { KubeObject } from "../../lib/kube/apply";
import { etcdInClusterManifests, etcdInClusterPlacement } from "../../lib/manifests/etcd";
import { karmadaApiObjects } from "../../lib/manifests/karmada";
import { namespaceObject } from "../../lib/manifests/namespace";
import { PLACEHOLDERS, substitute } from "../../lib/manifests/placeholders";
import { hostWorkloadManifests } from "../../lib/manifests/workloads";
import { agentIdentityObjects } from "../../lib/members/bootstrap";
import { resolveMemberSettings } from "../../lib/members/resolve";
import { memberObjects } from "../../lib/members/objects";
import { AGENT_OWNED_FLAGS, validateMemberConfig } from "../../lib/members/validate";
import { controlPlaneCertificates } from "../../lib/pki/certificates";
import { ConfigError, ConfigErrors, configErrorsOf } from "../../lib/validation/errors";
import { e2eTier } from "../../devkit/engine/tier";
import { TEST_SSH_KEY } from "../../devkit/sshKey";
import { DryRunResult, DryRunner, LoopbackCluster, accepted, startCluster } from "../../devkit/kube";
import { openssl } from "../../devkit/pki";

jest.setTimeout(300_000);

const tier = e2eTier(
  "generated settings dry-run on a real kube-apiserver (test/e2e/config-property.test.ts)",
  {
    binaries: ["etcd", "kube-apiserver"],
  },
);

/** 127.0.9.x is this suite's own range. */
const ADDRESS = "127.0.9.10";
const ETCD_ENDPOINTS = ["https://etcd-client.karmada-system.svc.cluster.local:2379"];

/** Runs per pipeline (≈620 in all): enough to reach most hostile classes, about a minute on 2 cores. */
const RUNS = { controlPlane: 200, etcd: 150, members: 150, addons: 120 } as const;

/**
 * Least share of inputs that must get past validation to the dry run, so that a generator cannot
 * silently regress to one validation rejects wholesale (which would leave the API server untested).
 */
const REACH_FLOOR = { controlPlane: 0.25, etcd: 0.25, members: 0.25, addons: 0.25 } as const;

/** API groups a plain kube-apiserver serves: only objects of these kinds are dry-run. */
const CORE_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "policy",
  "rbac.authorization.k8s.io",
  "admissionregistration.k8s.io",
  "apiregistration.k8s.io",
  "discovery.k8s.io",
  "apiextensions.k8s.io",
  "certificates.k8s.io",
]);
const isCoreKind = (obj: KubeObject): boolean =>
  CORE_GROUPS.has(String(obj.apiVersion).includes("/") ? String(obj.apiVersion).split("/")[0] : "");

// ---------------------------------------------------------------------------------------------------
// generators: each field mixes valid values (most of the time) with hostile ones of its class

/** Strings no field should take blindly: blanks, case, unicode, separators, overlong, shell, tokens. */
const hostileString: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "A",
      "UPPER",
      "a b",
      "-a",
      "a-",
      "a_b",
      "a.b",
      "ünïcødé",
      "日本",
      "a\nb",
      " lead",
      "trail ",
      "x".repeat(64),
      "y".repeat(254),
      "../etc",
      "a/b",
      "a:b",
      "@@karmada:ca-bundle@@",
      "1",
      "true",
      "$(id)",
      "'q\"",
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
);

/** A value of the wrong type for almost any field. */
const wrongType: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  null,
  0,
  -1,
  0.5,
  NaN,
  Infinity,
  true,
  false,
  [],
  ["a"],
  {},
  { a: "b" },
);

/** Numbers at the edges: negative, zero, fractions, NaN, infinities, int32/safe-integer overflow, ports. */
const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    0.5,
    1.5,
    NaN,
    Infinity,
    -Infinity,
    2 ** 31,
    2 ** 53,
    1e21,
    65535,
    65536,
    80,
    30000,
    32767,
  ),
  fc.integer({ min: -10, max: 100_000 }),
  fc.double(),
);

/** `valid` most of the time, else a hostile string or a wrong type (or `extra` hostile values). */
function field<T>(valid: fc.Arbitrary<T>, ...extra: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 30, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: hostileString },
    { weight: 1, arbitrary: wrongType },
    ...extra.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

const oneOf = <T>(...values: T[]) => fc.constantFrom(...values);
const numberField = (valid: fc.Arbitrary<number>) => field(valid, hostileNumber);
const boolField = field(fc.boolean(), fc.constantFrom("true", "false", 1, 0));

/** A map with mostly valid keys and values, sometimes hostile ones; sometimes not a map at all. */
function mapField(
  keys: fc.Arbitrary<string>,
  values: fc.Arbitrary<unknown>,
  maxKeys = 3,
): fc.Arbitrary<unknown> {
  const key = fc.oneof(
    { weight: 20, arbitrary: keys },
    { weight: 1, arbitrary: hostileString.filter((k): k is string => typeof k === "string") },
    { weight: 1, arbitrary: oneOf("constructor", "toString", "hasOwnProperty", "valueOf") },
  );
  return fc.oneof(
    { weight: 30, arbitrary: fc.dictionary(key, values, { maxKeys }) },
    { weight: 1, arbitrary: wrongType },
    { weight: 1, arbitrary: oneOf("a=b", "Failover=true") },
  );
}

/** Adds up to two unknown keys to a record (typos of real ones among them). */
function withUnknownKeys(
  record: fc.Arbitrary<Record<string, unknown>>,
  names: string[],
): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      record,
      fc.oneof(
        { weight: 6, arbitrary: fc.constant({}) },
        {
          weight: 1,
          arbitrary: fc.dictionary(oneOf(...names), fc.oneof(hostileString, wrongType), { maxKeys: 2 }),
        },
      ),
    )
    .map(([r, extra]) => ({ ...extra, ...r }));
}

const dnsLabel = field(
  oneOf("karmada-system", "karmada", "kube-system", "default", "a", "ns-1", "x".repeat(63)),
);
const dnsSubdomain = field(oneOf("cluster.local", "example.com", "k8s.internal", "a", `${"a".repeat(63)}.b`));
const labelKey = oneOf("app", "tier", "example.com/team", "app.kubernetes.io/name", "a.b/c-d_e");
const labelValue = field(oneOf("x", "", "v1.2", "a-b_c", "z".repeat(63)));
const labels = mapField(labelKey, labelValue);
const annotations = mapField(labelKey, field(oneOf("x", "", "some text: with spaces", "ünï", '{"a":1}')));
const featureGates = mapField(oneOf("Failover", "PropagateDeps", "GracefulEviction", "X1"), boolField);
const quantity = field(
  oneOf("100m", "1", "2", "1Gi", "512Mi", "0", "1e3", "1.5", "250m"),
  oneOf<unknown>("-1", "abc", "1GB", 0.5, 2, "1 Gi"),
);
const resourceName = oneOf("cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu");
const resources = field(
  fc.record(
    { requests: mapField(resourceName, quantity, 2), limits: mapField(resourceName, quantity, 2) },
    { requiredKeys: [] },
  ),
);
const image = field(
  oneOf(
    "registry.local:5000/karmada/x:v1",
    "nginx",
    "docker.io/library/busybox:1.37.0",
    `repo@sha256:${"a".repeat(64)}`,
  ),
  oneOf("Repo:Tag", "repo:tag with space", "repo::", "repo:tag\n"),
);
const pullPolicy = field(oneOf("Always", "IfNotPresent", "Never"), oneOf("always", "IfNotPresent "));

/** extraArgs: tunables, owned flags, odd names (dashes, spaces, case, prototype names) and odd values. */
function extraArgs(owned: readonly string[]): fc.Arbitrary<unknown> {
  const names = fc.oneof(
    {
      weight: 4,
      arbitrary: oneOf("v", "kube-api-qps", "kube-api-burst", "log-file", "max-requests-inflight"),
    },
    { weight: 2, arbitrary: oneOf(...owned) },
    { weight: 1, arbitrary: oneOf("-v", "--v", "V", "a b", "x=y", "", "a.b", "9") },
  );
  const values = field(
    oneOf("1", "2", "true", "", "a b", "--x", "ünï", "a=b,c=d"),
    fc.constantFrom(5, null, true),
  );
  return mapField(names, values);
}

/** Stands in for a real SSH key in generated inputs (short reports); the pipeline swaps TEST_SSH_KEY in. */
const SSH_KEY = "<TEST_SSH_KEY>";

const componentKey = fc.oneof(
  { weight: 8, arbitrary: oneOf(...Object.keys(COMPONENT_KEYS)) },
  {
    weight: 1,
    arbitrary: oneOf("karmadaScheduler", "karmada-scheduler", "unknown", "constructor", "toString"),
  },
);
const ownedControlPlaneFlags = [
  ...new Set(Object.values(CONTROL_PLANE_OWNED_FLAGS).flatMap((t) => Object.keys(t ?? {}))),
];

const componentConfig = field(
  withUnknownKeys(
    fc.record(
      {
        enabled: boolField,
        replicas: numberField(fc.integer({ min: 1, max: 5 })),
        image,
        imagePullPolicy: pullPolicy,
        resources,
        labels,
        annotations,
        featureGates,
        extraArgs: extraArgs(ownedControlPlaneFlags),
        priorityClassName: field(oneOf("system-node-critical", "system-cluster-critical", "high", "")),
      },
      { requiredKeys: [] },
    ),
    ["replica", "Image", "args", "env"],
  ),
);

const imageNames = oneOf(
  "karmada-apiserver",
  "karmada-scheduler",
  "kube-controller-manager",
  "etcd",
  "karmada-agent",
);
const san = field(
  oneOf("karmada.example.com", "10.0.0.10", "fd00::10", "*.example.com", "localhost"),
  oneOf("a..b", "*", "300.1.1.1"),
);

/** The broad mix: every field mostly valid, each sometimes hostile (rarely all valid at once). */
const broadControlPlaneInput = withUnknownKeys(
  fc.record(
    {
      karmadaVersion: field(
        oneOf(...RELEASES.map((r) => r.version)),
        oneOf("v1.0.0", "latest", RELEASES[0].version.replace(/^v/, "")),
      ),
      namespace: dnsLabel,
      clusterDomain: dnsSubdomain,
      images: field(
        fc.record(
          {
            registry: field(oneOf("registry.local:5000/karmada", "reg.io", "localhost:5000/")),
            repositories: mapField(imageNames, field(oneOf("mirror.local/x", "a/b/c"))),
            tags: mapField(imageNames, field(oneOf("v1.2.3", "latest", "sha-abc"))),
          },
          { requiredKeys: [] },
        ),
      ),
      featureGates,
      components: mapField(componentKey, componentConfig),
      apiServer: field(
        withUnknownKeys(
          fc.record(
            {
              serviceType: field(
                oneOf("ClusterIP", "NodePort", "LoadBalancer"),
                oneOf("nodeport", "ExternalName"),
              ),
              nodePort: numberField(fc.integer({ min: 30000, max: 32767 })),
              port: numberField(oneOf(443, 5443, 6443, 8443)),
              serviceSubnet: field(
                oneOf("10.96.0.0/12", "10.0.0.0/16", "fd00::/108"),
                oneOf("10.96.0.0/33", "10.96.0.1/12"),
              ),
              externalEndpoint: field(
                oneOf("karmada.example.com", "10.0.0.10:6443", "[fd00::1]:443", "fd00::1", "10.0.0.10"),
                oneOf("example.com:0", "example.com:99999", "https://x", "[fd00::1"),
              ),
              extraSans: field(fc.array(san, { maxLength: 3 })),
              loadBalancerClass: field(oneOf("example.com/lb", "service.k8s.aws/nlb")),
              serviceAnnotations: annotations,
            },
            { requiredKeys: [] },
          ),
          ["type", "ports", "externalEndpoints"],
        ),
      ),
      etcdKeyPrefix: field(oneOf("/registry", "/karmada", "/"), oneOf("registry", "/a b")),
      awaitWorkloads: boolField,
      mode: field(oneOf("containerized", "hosts"), oneOf("Hosts", "binary")),
      hosts: field(
        fc.record(
          {
            machines: field(
              fc.array(
                fc.record(
                  {
                    name: field(oneOf("cp1", "cp2", "cp3")),
                    address: field(oneOf("10.0.0.5", "10.0.0.6", "cp1.example.com", "127.0.0.1", "fd00::5")),
                    privateKey: fc.constant(SSH_KEY),
                  },
                  { requiredKeys: ["privateKey"] },
                ),
                { maxLength: 3 },
              ),
            ),
            binaries: field(
              fc.oneof(
                fc.constant({ path: "/opt/karmada/bin" }),
                fc.constant({ url: "https://mirror.example.com/k.tar.gz", sha256: "a".repeat(64) }),
              ),
            ),
            serviceManager: field(oneOf("systemd", "supervisor")),
            webhookEndpoint: field(oneOf("webhook.example.com:8443", "10.0.0.7")),
            apiServiceHosts: field(
              fc.record(
                { aggregatedApiserver: field(oneOf("agg.example.com", "10.0.0.9")) },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
  ["replicas", "Namespace", "apiserver", "component", "etcd"],
);

// ---------------------------------------------------------------------------------------------------
// the control plane: mostly fully valid configurations (every field plausible, cross-field rules kept),
// some with exactly one hostile field, a few from the broad mix above. Validation rejects almost every
// broad-mix input, so on its own it would barely exercise what only the API server checks.

type Path = readonly (string | number)[];
/**
 * One hostile field: `value` at `path` (intermediate objects created); `merge` spreads it into an object.
 * An empty path spreads `value` into the root (a cross-field conflict, e.g. `extraRules` with `full`).
 */
interface Mutation {
  readonly path: Path;
  readonly value: unknown;
  readonly merge?: boolean;
}

const CP_KEYS = Object.keys(COMPONENT_KEYS) as ComponentKey[];
const OPTIONAL_CP_KEYS: ComponentKey[] = ["metricsAdapter", "descheduler", "search"];
const CORE_CP_KEYS = CP_KEYS.filter((k) => !OPTIONAL_CP_KEYS.includes(k));
/** Flags no control-plane component owns (tunables). */
const TUNABLE_FLAGS = ["v", "kube-api-qps", "kube-api-burst", "max-requests-inflight", "log-flush-frequency"];

// valid values of every field
const okVersion = oneOf(...RELEASES.map((r) => r.version));
const okNamespace = oneOf("karmada-system", "karmada", "kube-system", "default", "a", "ns-1", "x".repeat(63));
const okDomain = oneOf("cluster.local", "example.com", "k8s.internal", "a", `${"a".repeat(63)}.b`);
const okLabelValue = oneOf("x", "", "v1.2", "a-b_c", "z".repeat(63));
const okAnnotationValue = oneOf("x", "", "some text: with spaces", "ünï", '{"a":1}', "a\nb");
const okLabels = fc.dictionary(labelKey, okLabelValue, { maxKeys: 3 });
const okAnnotations = fc.dictionary(labelKey, okAnnotationValue, { maxKeys: 3 });
const gateName = oneOf("Failover", "PropagateDeps", "GracefulEviction", "X1");
const okFeatureGates = fc.dictionary(gateName, fc.boolean(), { maxKeys: 3 });
const okImage = oneOf(
  "registry.local:5000/karmada/x:v1",
  "nginx",
  "docker.io/library/busybox:1.37.0",
  `repo@sha256:${"a".repeat(64)}`,
  "localhost:5000/a/b:c",
);
const okPullPolicy = oneOf("Always", "IfNotPresent", "Never");
const okPriorityClass = oneOf("system-node-critical", "system-cluster-critical", "high", "a.b");
const okResources = fc.oneof(
  fc.constant({}),
  fc
    .record(
      { cpu: fc.integer({ min: 1, max: 4000 }), extra: fc.integer({ min: 0, max: 4000 }) },
      { requiredKeys: ["cpu", "extra"] },
    )
    .map(({ cpu, extra }) => ({
      requests: { cpu: `${cpu}m`, memory: "128Mi" },
      limits: { cpu: `${cpu + extra}m`, memory: "1Gi" },
    })),
  oneOf<unknown>(
    { requests: { cpu: "100m", memory: "128Mi" } },
    { limits: { memory: "512Mi" } },
    { requests: { "ephemeral-storage": "1Gi" }, limits: { "ephemeral-storage": "2Gi" } },
    { requests: { cpu: "1", "example.com/gpu": "1" }, limits: { "example.com/gpu": "1" } },
    { requests: { memory: "1Gi", "hugepages-2Mi": "4Mi" }, limits: { "hugepages-2Mi": "4Mi" } },
  ),
);
const okSan = oneOf("karmada.example.com", "10.0.0.10", "fd00::10", "*.example.com", "localhost");
const okExternalEndpoint = oneOf(
  "karmada.example.com",
  "karmada.example.com:443",
  "10.0.0.10:6443",
  "[fd00::1]:443",
  "fd00::1",
  "10.0.0.10",
);
/** Flag values: any string in a container; on hosts only what needs no shell quoting. */
const okArgValue = (hosts: boolean) =>
  hosts
    ? oneOf("1", "2", "true", "", "a=b,c=d", "/var/log/x.log")
    : oneOf("1", "true", "", "a b", "ünï", "--x");
const okExtraArgs = (hosts: boolean) =>
  fc.dictionary(oneOf(...TUNABLE_FLAGS), okArgValue(hosts), { maxKeys: 2 });

function okComponent(key: ComponentKey, hosts: boolean): fc.Arbitrary<Record<string, unknown>> {
  const common = {
    enabled: OPTIONAL_CP_KEYS.includes(key) ? fc.boolean() : fc.constant(true),
    featureGates: okFeatureGates,
    extraArgs: okExtraArgs(hosts),
  };
  const pod = {
    replicas: fc.integer({ min: 1, max: 5 }),
    image: okImage,
    imagePullPolicy: okPullPolicy,
    resources: okResources,
    labels: okLabels,
    annotations: okAnnotations,
    priorityClassName: okPriorityClass,
  };
  const model: Record<string, fc.Arbitrary<unknown>> = hosts ? common : { ...common, ...pod };
  return fc.record(model, {
    requiredKeys: [],
  });
}
const okComponents = (hosts: boolean) =>
  fc.record(Object.fromEntries(CP_KEYS.map((k) => [k, okComponent(k, hosts)])), { requiredKeys: [] });

const okImages = fc.record(
  {
    registry: oneOf("registry.local:5000/karmada", "reg.io", "localhost:5000/", "a.b/c/d"),
    repositories: fc.dictionary(imageNames, oneOf("mirror.local/x", "a/b/c", "reg.io:5000/kube-apiserver"), {
      maxKeys: 2,
    }),
    tags: fc.dictionary(imageNames, oneOf("v1.2.3", "latest", "sha-abc", "v1.35.2_custom"), { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

/** `apiServer` of a containerized control plane: nodePort only with NodePort, loadBalancerClass only with LoadBalancer. */
const okApiServer = fc
  .tuple(
    fc.record(
      {
        port: fc.oneof(oneOf(443, 5443, 6443, 8443), fc.integer({ min: 1, max: 65535 })),
        serviceSubnet: oneOf(
          "10.96.0.0/12",
          "10.0.0.0/16",
          "fd00::/108",
          "192.168.0.0/24",
          "fd00:10:96::/112",
        ),
        externalEndpoint: okExternalEndpoint,
        extraSans: fc.uniqueArray(okSan, { maxLength: 3 }),
        serviceAnnotations: okAnnotations,
      },
      { requiredKeys: [] },
    ),
    fc.oneof(
      fc.constant({}),
      fc.constant({ serviceType: "ClusterIP" }),
      fc.record(
        { serviceType: fc.constant("NodePort"), nodePort: fc.integer({ min: 30000, max: 32767 }) },
        { requiredKeys: ["serviceType"] },
      ),
      fc.record(
        {
          serviceType: fc.constant("LoadBalancer"),
          loadBalancerClass: oneOf("example.com/lb", "service.k8s.aws/nlb"),
        },
        { requiredKeys: ["serviceType"] },
      ),
    ),
  )
  .map(([rest, service]) => ({ ...rest, ...service }));

const okContainerized = fc.record(
  {
    karmadaVersion: okVersion,
    namespace: okNamespace,
    clusterDomain: okDomain,
    images: okImages,
    featureGates: okFeatureGates,
    components: okComponents(false),
    apiServer: okApiServer,
    etcdKeyPrefix: oneOf("/registry", "/karmada", "/", "/a/b_c.d-e"),
    awaitWorkloads: fc.boolean(),
    mode: fc.constant("containerized"),
  },
  { requiredKeys: [] },
);

const machine = (name: string, address: string) => ({ name, address, privateKey: SSH_KEY });
/** Endpoint-capable addresses (any aggregated API may use Endpoints), or any address with fronts for all. */
const okMachines = fc.oneof(
  fc
    .uniqueArray(oneOf("10.0.0.5", "10.0.0.6", "10.0.0.7", "fd00::5"), { minLength: 1, maxLength: 3 })
    .map((as) => ({
      machines: as.map((a, i) => machine(`cp${i + 1}`, a)),
      fronts: false,
    })),
  fc
    .uniqueArray(oneOf("10.0.0.5", "cp1.example.com", "127.0.0.1", "fd00::5", "127.0.0.2"), {
      minLength: 1,
      maxLength: 3,
    })
    .map((as) => ({ machines: as.map((a, i) => machine(`cp${i + 1}`, a)), fronts: true })),
);
const okApiServiceHosts = fc.record(
  {
    aggregatedApiserver: oneOf("agg.example.com", "10.0.0.9"),
    metricsAdapter: oneOf("metrics.example.com", "10.0.0.9"),
    search: oneOf("search.example.com", "fd00::9"),
  },
  { requiredKeys: ["aggregatedApiserver", "metricsAdapter", "search"] },
);
const okHostsSection = fc
  .tuple(
    okMachines,
    fc.record(
      {
        binaries: oneOf<unknown>(
          { path: "/opt/karmada/bin" },
          { path: "/opt/karmada.tar.gz" },
          { url: "https://mirror.example.com/k.tar.gz", sha256: "a".repeat(64) },
        ),
        serviceManager: oneOf("systemd", "supervisor"),
        webhookEndpoint: oneOf("webhook.example.com:8443", "10.0.0.7", "[fd00::7]:9443"),
        kubernetesVersion: oneOf(...RELEASES.map((r) => r.kubernetesVersion)),
        components: oneOf<unknown>({}, { scheduler: { version: RELEASES[0].version } }),
        bindAllInterfaces: fc.boolean(),
        healthTimeoutSeconds: fc.integer({ min: 5, max: 3600 }),
        binDir: oneOf("/usr/local/bin", "/opt/bin"),
        configDir: oneOf("/etc/karmada", "/srv/karmada-cfg"),
      },
      { requiredKeys: ["binaries"] },
    ),
    okApiServiceHosts,
    fc.boolean(),
  )
  .map(([{ machines, fronts }, rest, apiServiceHosts, front]) => ({
    ...rest,
    machines,
    ...(fronts || front ? { apiServiceHosts } : {}),
  }));

/** Hosts mode: no pod or Service settings, no images; an external endpoint whenever there are several hosts. */
const okHosts = fc
  .tuple(
    fc.record(
      {
        karmadaVersion: okVersion,
        namespace: okNamespace,
        clusterDomain: okDomain,
        featureGates: okFeatureGates,
        components: okComponents(true),
        apiServer: fc.record(
          {
            port: oneOf(443, 5443, 6443),
            serviceSubnet: oneOf("10.96.0.0/12", "fd00::/108"),
            externalEndpoint: okExternalEndpoint,
            extraSans: fc.uniqueArray(okSan, { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
        etcdKeyPrefix: oneOf("/registry", "/karmada"),
        awaitWorkloads: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    okHostsSection,
    okExternalEndpoint,
  )
  .map(([config, hosts, external]) => {
    const apiServer = (config.apiServer ?? {}) as Record<string, unknown>;
    const needsEndpoint = hosts.machines.length > 1 && apiServer.externalEndpoint === undefined;
    return {
      ...config,
      ...(needsEndpoint ? { apiServer: { ...apiServer, externalEndpoint: external } } : {}),
      mode: "hosts",
      hosts,
    };
  });

// hostile values of one field
const anyHostile = fc.oneof(hostileString, wrongType);
const hostileKey = fc.oneof(
  hostileString.filter((k): k is string => typeof k === "string"),
  oneOf("constructor", "toString", "hasOwnProperty", "valueOf"),
);
const at = (path: fc.Arbitrary<Path>, value: fc.Arbitrary<unknown>, merge = false): fc.Arbitrary<Mutation> =>
  fc.tuple(path, value).map(([p, v]) => ({ path: p, value: v, merge }));
const fixed = (...path: Path) => fc.constant(path);
const componentAt = (...rest: Path) => oneOf(...CP_KEYS).map((k): Path => ["components", k, ...rest]);

/** A map that is not one, a bad key (valid value), or a valid key with a bad value. */
function hostileMap(
  path: fc.Arbitrary<Path>,
  key: fc.Arbitrary<string>,
  okValue: fc.Arbitrary<unknown>,
  badValue: fc.Arbitrary<unknown>,
): fc.Arbitrary<Mutation> {
  return fc.oneof(
    at(path, fc.oneof(wrongType, oneOf("a=b", "Failover=true"))),
    fc.tuple(path, hostileKey, okValue).map(([p, k, v]) => ({ path: [...p, k], value: v })),
    fc.tuple(path, key, badValue).map(([p, k, v]) => ({ path: [...p, k], value: v })),
  );
}

const badReplicas = fc.oneof(hostileNumber, anyHostile, oneOf(2 ** 31 - 1, 2 ** 31, 2 ** 32));
const badResources = fc.oneof(
  wrongType,
  oneOf<unknown>(
    { requests: "100m" },
    { request: { cpu: "1" } },
    { requests: { cpu: "1" }, limits: { cpu: "500m" } },
    { requests: { "example.com/gpu": "1" } },
    { requests: { "hugepages-2Mi": "3Mi" }, limits: { "hugepages-2Mi": "3Mi" } },
    { requests: { gpu: "1" } },
    { requests: { cpu: "1e400" } },
  ),
  fc
    .tuple(resourceName, oneOf<unknown>("-1", "abc", "1GB", 0.5, 2, "1 Gi", "", null))
    .map(([name, q]) => ({ requests: { [name]: q } })),
);

/** One hostile field of a component, in either mode. */
const hostileComponentField = (hosts: boolean) =>
  fc.oneof(
    at(componentAt(), fc.oneof(wrongType, hostileString)),
    at(
      oneOf("karmadaScheduler", "karmada-scheduler", "unknown", "constructor", "toString").map((k) => [
        "components",
        k,
      ]),
      fc.constant({}),
    ),
    at(componentAt("enabled"), fc.oneof(anyHostile, oneOf<unknown>("true", 1, 0))),
    at(
      oneOf(...CORE_CP_KEYS).map((k): Path => ["components", k, "enabled"]),
      fc.constant(false),
    ),
    hostileMap(
      componentAt("featureGates"),
      gateName,
      fc.boolean(),
      fc.oneof(anyHostile, oneOf<unknown>("true", 1)),
    ),
    hostileMap(
      componentAt("extraArgs"),
      oneOf(...TUNABLE_FLAGS),
      okArgValue(hosts),
      fc.oneof(
        wrongType,
        oneOf<unknown>(5, null, true),
        ...(hosts ? [oneOf("a b", "$(id)", "'q\"", "ünï", "a\nb")] : []),
      ),
    ),
    at(
      fc.tuple(fc.oneof(oneOf(...CP_KEYS)), fc.nat()).map(([k, i]): Path => {
        const component = COMPONENT_KEYS[k] as ControlPlaneComponent;
        const owned = Object.keys(hosts ? hostsOwnedFlags(component) : CONTROL_PLANE_OWNED_FLAGS[component]);
        return ["components", k, "extraArgs", owned[i % owned.length]];
      }),
      oneOf("x", "1"),
    ),
    at(
      fc
        .tuple(oneOf(...CP_KEYS), oneOf("-v", "--v", "V", "a b", "x=y", "", "a.b", "9", "a_b"))
        .map(([k, flag]): Path => ["components", k, "extraArgs", flag]),
      okArgValue(hosts),
    ),
    at(
      fc
        .tuple(oneOf(...CP_KEYS), oneOf("replica", "Image", "args", "env"))
        .map(([k, u]): Path => ["components", k, u]),
      anyHostile,
    ),
  );

/** Image references a runtime cannot pull (the API server takes them in templates). */
const badImage = fc.oneof(
  anyHostile,
  oneOf(
    "Repo:Tag",
    "repo:tag with space",
    "repo::",
    "repo:tag\n",
    " nginx",
    "nginx ",
    "nginx:",
    "a@sha256:ab",
  ),
);

/** One hostile pod field of a component (containerized), or the same field valid in hosts mode. */
const hostilePodField = fc.oneof(
  at(componentAt("replicas"), badReplicas),
  at(componentAt("image"), badImage),
  at(componentAt("imagePullPolicy"), fc.oneof(anyHostile, oneOf("always", "IfNotPresent ", ""))),
  at(componentAt("resources"), badResources),
  hostileMap(
    componentAt("labels"),
    labelKey,
    okLabelValue,
    fc.oneof(anyHostile, oneOf("z".repeat(64), "-x")),
  ),
  hostileMap(componentAt("annotations"), labelKey, okAnnotationValue, fc.oneof(wrongType, oneOf(5, null))),
  at(componentAt("annotations"), fc.constant({ big: "x".repeat(256 * 1024) })),
  at(componentAt("priorityClassName"), fc.oneof(anyHostile, oneOf("x".repeat(254), "System-node-critical"))),
);

/** Hostile fields both modes share: top level, images, feature gates, the API server's address fields. */
const hostileCommonField = fc.oneof(
  at(
    fixed("karmadaVersion"),
    fc.oneof(anyHostile, oneOf("v1.0.0", "latest", RELEASES[0].version.slice(1), ` ${RELEASES[0].version}`)),
  ),
  at(fixed("namespace"), fc.oneof(anyHostile, oneOf("x".repeat(64), "Karmada", "kube_system"))),
  at(
    fixed("clusterDomain"),
    fc.oneof(anyHostile, oneOf(`${"a".repeat(64)}.b`, "a..b", ".local", "x".repeat(254))),
  ),
  hostileMap(fixed("featureGates"), gateName, fc.boolean(), fc.oneof(anyHostile, oneOf<unknown>("true", 1))),
  at(fixed("components"), fc.oneof(wrongType, oneOf("a=b"))),
  at(fixed("apiServer"), wrongType),
  at(fixed("apiServer", "port"), fc.oneof(hostileNumber, anyHostile)),
  at(
    fixed("apiServer", "serviceSubnet"),
    fc.oneof(
      anyHostile,
      oneOf(
        "10.96.0.0/33",
        "10.96.0.1/12",
        "10.96.0.0",
        "fd00::/129",
        "10.96.0.0/32",
        "10.96.0.0/31",
        "fd00::/128",
        "0.0.0.0/0",
        "::/0",
      ),
    ),
  ),
  at(
    fixed("apiServer", "externalEndpoint"),
    fc.oneof(
      anyHostile,
      oneOf(
        "example.com:0",
        "example.com:99999",
        "https://x",
        "[fd00::1",
        "example.com:",
        "a b",
        "10.0.0.256",
        "[10.0.0.1]:443",
      ),
    ),
  ),
  at(fixed("apiServer", "extraSans"), fc.oneof(wrongType, hostileString)),
  at(
    fixed("apiServer", "extraSans"),
    fc
      .tuple(
        fc.uniqueArray(okSan, { maxLength: 2 }),
        fc.oneof(anyHostile, oneOf("a..b", "*", "300.1.1.1", "*.*.x", "10.0.0.01")),
      )
      .map(([ok, bad]) => [...ok, bad]),
  ),
  at(
    fixed("apiServer", "extraSans"),
    oneOf(["a.example.com", "a.example.com"], ["10.0.0.1", "10.0.0.1"], ["fd00::1", "fd00:0::1"]),
  ),
  at(
    oneOf("type", "ports", "externalEndpoints").map((k): Path => ["apiServer", k]),
    anyHostile,
  ),
  at(fixed("etcdKeyPrefix"), fc.oneof(anyHostile, oneOf("registry", "/a b", "//", "/ü", "/a\nb", ""))),
  at(fixed("awaitWorkloads"), fc.oneof(hostileString, oneOf<unknown>("true", 1, 0, null))),
  at(fixed("mode"), fc.oneof(anyHostile, oneOf("Hosts", "binary", ""))),
  at(
    oneOf("replicas", "Namespace", "apiserver", "component", "etcd").map((k): Path => [k]),
    anyHostile,
  ),
  hostileComponentField(false),
);

/** Hostile fields of a containerized control plane (the Service and pods). */
const hostileContainerizedField = fc.oneof(
  hostileCommonField,
  hostilePodField,
  at(fixed("images"), fc.oneof(wrongType, oneOf("registry.local"))),
  at(
    fixed("images", "registry"),
    fc.oneof(anyHostile, oneOf("Registry.io", "reg.io:port", "https://reg.io", "reg.io//x")),
  ),
  hostileMap(
    fixed("images", "repositories"),
    imageNames,
    oneOf("mirror.local/x"),
    fc.oneof(anyHostile, oneOf("Mirror.local/x", "a b", "x:y", "x@sha256:abc", "/x", "x/")),
  ),
  hostileMap(
    fixed("images", "tags"),
    imageNames,
    oneOf("v1.2.3"),
    fc.oneof(
      anyHostile,
      oneOf("tag with space", "", " v1", "-x", "x".repeat(129), "a:b", `@sha256:${"a".repeat(64)}`, ".v1"),
    ),
  ),
  at(
    oneOf("registries", "tag").map((k): Path => ["images", k]),
    anyHostile,
  ),
  at(fixed("apiServer", "serviceType"), fc.oneof(anyHostile, oneOf("nodeport", "ExternalName", "Headless"))),
  // a bad node port with the right type; a good node port with the wrong type
  at(
    fixed("apiServer"),
    fc.oneof(hostileNumber, anyHostile).map((nodePort) => ({ serviceType: "NodePort", nodePort })),
    true,
  ),
  at(
    fixed("apiServer"),
    fc.record({ serviceType: oneOf("ClusterIP", "LoadBalancer", undefined), nodePort: fc.constant(30080) }),
    true,
  ),
  // a bad class with LoadBalancer; a good class with another type
  at(
    fixed("apiServer"),
    fc
      .oneof(anyHostile, oneOf("a b", "UPPER/x", "x".repeat(64), "example.com/", "/lb", "a/b/c", "lb"))
      .map((loadBalancerClass) => ({ serviceType: "LoadBalancer", loadBalancerClass })),
    true,
  ),
  at(
    fixed("apiServer"),
    fc.record({
      serviceType: oneOf("ClusterIP", "NodePort", undefined),
      loadBalancerClass: fc.constant("example.com/lb"),
    }),
    true,
  ),
  hostileMap(
    fixed("apiServer", "serviceAnnotations"),
    labelKey,
    okAnnotationValue,
    fc.oneof(wrongType, oneOf(5, null)),
  ),
  at(fixed("hosts"), fc.constant({ machines: [machine("cp1", "10.0.0.5")], binaries: { path: "/opt/bin" } })),
);

/** Hostile fields of a hosts-mode control plane (pod and Service settings refused, the hosts section). */
const hostileHostsField = fc.oneof(
  hostileCommonField,
  hostileComponentField(true),
  at(
    fc.tuple(oneOf(...CP_KEYS), oneOf(...POD_ONLY_FIELDS)).map(([k, f]): Path => ["components", k, f]),
    oneOf<unknown>(2, "nginx", "Always", {}, { app: "x" }, "high"),
  ),
  at(
    oneOf(...SERVICE_ONLY_FIELDS).map((f): Path => ["apiServer", f]),
    oneOf<unknown>("NodePort", 30080, "example.com/lb", { a: "b" }),
  ),
  at(fixed("images"), okImages),
  at(fixed("hosts"), wrongType),
  at(fixed("hosts", "machines"), fc.oneof(wrongType, fc.constant([]))),
  at(
    oneOf("name", "address", "port", "user", "privateKey", "hostKey", "root", "proxy").map((f): Path => [
      "hosts",
      "machines",
      0,
      f,
    ]),
    fc.oneof(
      anyHostile,
      hostileNumber,
      oneOf<unknown>(
        "CP1",
        "cp_1",
        "10.0.0.256",
        "127.0.0.1",
        "fe80::1",
        "0.0.0.0",
        "::1",
        "Root",
        "ssh-key",
        "/root/.ssh/id_ed25519",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA x",
        "/srv/host1",
        "rel",
        { address: "a b", privateKey: SSH_KEY },
      ),
    ),
  ),
  at(
    fixed("hosts", "machines", 1),
    fc.constantFrom(machine("cp1", "10.0.0.98"), machine("cp9", "10.0.0.5"), machine("cp9", "127.0.0.1")),
  ),
  at(
    fc.tuple(oneOf("name", "address", "privateKey")).map(([f]): Path => ["hosts", "machines", 0, f]),
    fc.constant(undefined),
  ),
  at(
    fixed("hosts", "binaries"),
    fc.oneof(
      wrongType,
      oneOf<unknown>(
        {},
        { url: "https://x/k.tar.gz" },
        { path: "rel" },
        { path: "/opt/../x" },
        { path: "/opt/x", url: "https://x/k.tar.gz", sha256: "a".repeat(64) },
        { url: "ftp://x", sha256: "a".repeat(64) },
        { url: "https://x/k.tar.gz", sha256: "ABC" },
        { path: "/opt/a b" },
      ),
    ),
  ),
  at(fixed("hosts", "serviceManager"), fc.oneof(anyHostile, oneOf("Systemd", "openrc"))),
  at(
    fixed("hosts", "webhookEndpoint"),
    fc.oneof(anyHostile, oneOf("example.com:0", "a b", "[fd00::1", "example.com:99999", "https://x")),
  ),
  at(
    fixed("hosts", "apiServiceHosts"),
    fc.oneof(wrongType, oneOf<unknown>({ aggregatedApiserver: "agg.example.com" })),
  ),
  at(
    oneOf("aggregatedApiserver", "metricsAdapter", "search", "Search").map((k): Path => [
      "hosts",
      "apiServiceHosts",
      k,
    ]),
    fc.oneof(anyHostile, oneOf("a b", "10.0.0.256", "https://x", "agg.example.com:443")),
  ),
  at(fixed("hosts", "kubernetesVersion"), fc.oneof(anyHostile, oneOf("1.35.2", "v1.35", "latest"))),
  at(
    fixed("hosts", "components"),
    fc.oneof(
      wrongType,
      oneOf<unknown>(
        { unknown: {} },
        { constructor: {} },
        { search: { version: RELEASES[0].version } },
        { scheduler: { version: "1.18" } },
        { scheduler: { binaries: { path: "rel" } } },
        { scheduler: null },
      ),
    ),
  ),
  at(fixed("hosts", "healthTimeoutSeconds"), fc.oneof(hostileNumber, anyHostile)),
  at(
    oneOf("binDir", "configDir").map((k): Path => ["hosts", k]),
    fc.oneof(anyHostile, oneOf("rel", "/a b", "/a/../b", "/")),
  ),
  at(fixed("hosts", "bindAllInterfaces"), fc.oneof(anyHostile, oneOf<unknown>("true", 1))),
  at(
    oneOf("machine", "binary", "serviceManger").map((k): Path => ["hosts", k]),
    anyHostile,
  ),
  at(fixed("apiServer", "externalEndpoint"), fc.constant(undefined)),
);

/** A deep copy of plain data (not structuredClone: its objects come from another realm than jest's). */
function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
}

/** `base` with one field set (a copy; intermediate objects created, own properties only). */
function mutate(base: Record<string, unknown>, { path, value, merge }: Mutation): Record<string, unknown> {
  const root = clone(base);
  // an empty path spreads `value` into the root: several fields at once (a cross-field conflict)
  if (path.length === 0) return { ...root, ...(value as Record<string, unknown>) };
  const put = (obj: object, key: string | number, v: unknown) =>
    Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  let node: Record<string | number, unknown> = root;
  path.slice(0, -1).forEach((key, i) => {
    if (!isRecord(node[key])) put(node, key, typeof path[i + 1] === "number" ? [] : {});
    node = node[key] as Record<string | number, unknown>;
  });
  const last = path[path.length - 1];
  const old = node[last];
  put(node, last, merge && isRecord(old) && isRecord(value) ? { ...old, ...value } : value);
  return root;
}

/**
 * Control-plane inputs: 55% fully valid (two in three containerized), 35% valid but for exactly one
 * hostile field, 10% the broad mix (many hostile fields at once: every error collected and named).
 */
const controlPlaneInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 37, arbitrary: okContainerized },
  { weight: 18, arbitrary: okHosts },
  {
    weight: 23,
    arbitrary: fc.tuple(okContainerized, hostileContainerizedField).map(([base, m]) => mutate(base, m)),
  },
  { weight: 12, arbitrary: fc.tuple(okHosts, hostileHostsField).map(([base, m]) => mutate(base, m)) },
  { weight: 10, arbitrary: broadControlPlaneInput },
);

/** The broad mix of an in-cluster etcd (many hostile fields at once). */
const broadEtcdInput = withUnknownKeys(
  fc.record(
    {
      name: field(oneOf("etcd", "karmada-etcd", "e", "x".repeat(45))),
      namespace: dnsLabel,
      clusterDomain: dnsSubdomain,
      replicas: numberField(oneOf(1, 3, 5)),
      image,
      imagePullPolicy: pullPolicy,
      storage: field(
        fc.oneof(
          fc.record(
            {
              kind: field(fc.constant("pvc")),
              size: quantity,
              storageClassName: field(oneOf("standard", "fast-ssd")),
            },
            { requiredKeys: [] },
          ),
          fc.constant({ kind: "emptyDir" }),
          fc.record({
            kind: fc.constant("hostPath"),
            path: field(oneOf("/var/lib/etcd", "/data"), oneOf("/", "rel/x", "/a/../b")),
          }),
          fc.record({ kind: oneOf("nfs", "PVC") }),
        ),
      ),
      resources,
      labels,
      annotations,
      priorityClassName: field(oneOf("system-node-critical", "high", "")),
      extraArgs: extraArgs(Object.keys(ETCD_OWNED_FLAGS)),
      quotaBackendBytes: field(
        fc.oneof(oneOf("8Gi", "2Gi", "100Mi"), fc.integer({ min: 1, max: 2 ** 33 })),
        hostileNumber,
      ),
      awaitWorkloads: boolField,
      deleteDataOnDestroy: boolField,
      createNamespace: boolField,
      backup: field(
        fc.record(
          {
            schedule: field(
              oneOf("0 */6 * * *", "@daily", "*/5 * * * *"),
              oneOf("* * *", "61 * * * *", "@often"),
            ),
            retain: numberField(fc.integer({ min: 1, max: 30 })),
            target: field(
              fc.oneof(
                fc.record(
                  {
                    kind: field(fc.constant("pvc")),
                    size: quantity,
                    existingClaim: field(oneOf("backups", "etcd-backup")),
                    storageClassName: field(oneOf("standard")),
                  },
                  { requiredKeys: [] },
                ),
                fc.record(
                  {
                    kind: fc.constant("hostPath"),
                    path: field(oneOf("/backup", "/var/backups/etcd")),
                    nodeName: field(oneOf("node-1", "n.example.com")),
                  },
                  { requiredKeys: ["kind"] },
                ),
              ),
            ),
            toolsImage: image,
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
  ["replica", "size", "storageClass"],
);

const policyRule = field(
  fc.record(
    {
      apiGroups: field(fc.array(field(oneOf("", "apps", "*", "example.com")), { maxLength: 2 })),
      resources: field(fc.array(field(oneOf("pods", "deployments", "*", "pods/log")), { maxLength: 2 })),
      nonResourceURLs: field(fc.array(field(oneOf("/healthz", "*", "/api/*")), { maxLength: 1 })),
      verbs: field(fc.array(field(oneOf("get", "list", "*", "create")), { maxLength: 2 })),
    },
    { requiredKeys: [] },
  ),
);

/** The broad mix of a member registration (many hostile fields at once). */
const broadMemberInput = withUnknownKeys(
  fc.record(
    {
      clusterName: field(oneOf("member-1", "m", "edge-02", "x".repeat(48)), oneOf("x".repeat(49), "Member")),
      mode: field(oneOf("Push", "Pull"), oneOf("push", "pull")),
      apiEndpoint: field(
        oneOf("https://10.0.0.20:6443", "https://member.example.com", "https://[fd00::20]:6443"),
        oneOf("http://10.0.0.20", "10.0.0.20:6443", "https://"),
      ),
      provider: labelValue,
      region: labelValue,
      zones: field(fc.array(labelValue, { maxLength: 3 })),
      taints: field(
        fc.array(
          fc.record(
            {
              key: field(labelKey),
              value: labelValue,
              effect: field(oneOf("NoSchedule", "NoExecute"), oneOf("PreferNoSchedule")),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
      ),
      proxyURL: field(
        oneOf("http://proxy:3128", "socks5://10.0.0.1:1080", "https://p.example.com"),
        oneOf("ftp://x", "http://"),
      ),
      insecureSkipTLSVerification: boolField,
      permissions: field(oneOf("full", "leastPrivilege"), oneOf("Full", "admin")),
      extraRules: field(fc.array(policyRule, { maxLength: 2 })),
      pull: field(
        withUnknownKeys(
          fc.record(
            {
              replicas: numberField(fc.integer({ min: 1, max: 3 })),
              identity: field(oneOf("direct", "bootstrapToken")),
              extraArgs: extraArgs(Object.keys(AGENT_OWNED_FLAGS)),
              karmadaApiEndpoint: field(oneOf("https://karmada.example.com:5443", "https://10.0.0.10:32443")),
              certValidityHours: numberField(oneOf(2, 24, 8760)),
              reportSecrets: boolField,
              bootstrapTokenTtlHours: numberField(oneOf(0, 1, 24)),
              namespace: dnsLabel,
              createNamespace: boolField,
            },
            { requiredKeys: [] },
          ),
          ["replica", "image"],
        ),
      ),
      credentialGeneration: numberField(fc.integer({ min: 0, max: 3 })),
      forceRemove: boolField,
    },
    { requiredKeys: ["clusterName", "mode", "apiEndpoint"] },
  ),
  ["cluster", "syncMode", "endpoint"],
);

/** The broad mix of an addon (many hostile fields at once). */
const broadAddonInput = withUnknownKeys(
  fc.record(
    {
      kind: field(
        oneOf("descheduler", "search", "metricsAdapter", "schedulerEstimator", "manifests", "helm"),
        oneOf("estimator"),
      ),
      target: field(oneOf("host", "controlPlane", "members")),
      overrides: field(
        fc.record(
          {
            replicas: numberField(fc.integer({ min: 1, max: 3 })),
            extraArgs: extraArgs([
              ...Object.values(CONTROL_PLANE_BUILTINS).flatMap((c) =>
                Object.keys(CONTROL_PLANE_OWNED_FLAGS[c] ?? {}),
              ),
              "kubeconfig",
              "server-port",
              "cluster-name",
            ]),
          },
          { requiredKeys: [] },
        ),
      ),
      manifests: field(
        fc.record({ yaml: fc.constant("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n") }),
      ),
      helm: field(
        fc.record({ chart: field(oneOf("oci://example.com/chart", "./chart")) }, { requiredKeys: [] }),
      ),
      // arrays of registrations, as the component takes them (their names hostile)
      members: fc.array(fc.record({ clusterName: field(oneOf("member-1", "member-2", "m")) }), {
        maxLength: 2,
      }),
    },
    { requiredKeys: ["kind"] },
  ),
  ["type", "override"],
);

// ---------------------------------------------------------------------------------------------------
// in-cluster etcd, member registrations and addons: the control plane's treatment — mostly fully valid
// settings (every field plausible, cross-field rules kept), some valid but for exactly one hostile
// field, a few from the broad mix above

/** Kubernetes quantities of a positive size. */
const okSize = oneOf("1Gi", "8Gi", "512Mi", "100G", "1e9", "1.5Gi", "20Gi");
const okStorageClass = oneOf("standard", "fast-ssd", "gp3", "a.b-c");
const okHostPath = oneOf("/var/lib/etcd", "/data", "/srv/etcd data", "/mnt/disk-1/etcd_2");
/** etcd flags no member owns (tunables). */
const ETCD_TUNABLE_FLAGS = [
  "snapshot-count",
  "heartbeat-interval",
  "election-timeout",
  "auto-compaction-retention",
  "auto-compaction-mode",
  "log-level",
  "max-request-bytes",
];

// cron schedules robfig/cron (the API server's parser) and lib/validation/cron.ts both take
const cronMinute = oneOf("*", "0", "5", "59", "*/5", "0,30", "15-45/15", "1-59/2");
const cronHour = oneOf("*", "0", "23", "*/6", "1-5", "2,14", "0-23/4");
const cronDom = oneOf("*", "?", "1", "15", "28", "1-7", "*/2", "1,15");
const cronMonth = oneOf("*", "1", "12", "JAN", "feb", "1-6", "*/3", "JAN-MAR");
const cronDow = oneOf("*", "?", "0", "6", "SUN", "MON-FRI", "1-5", "sat");
const okCron = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(cronMinute, cronHour, cronDom, cronMonth, cronDow).map((parts) => parts.join(" ")),
  },
  {
    weight: 1,
    arbitrary: oneOf("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"),
  },
);

const okEtcdStorage = fc.oneof(
  fc.record(
    { kind: fc.constant("pvc"), size: okSize, storageClassName: okStorageClass },
    { requiredKeys: [] },
  ),
  fc.constant({ kind: "emptyDir" }),
  fc.record({ kind: fc.constant("hostPath"), path: okHostPath }),
);
const okBackupTarget = fc.oneof(
  fc.record(
    {
      kind: fc.constant("pvc"),
      size: okSize,
      existingClaim: oneOf("backups", "etcd-backup", "a.b"),
      storageClassName: okStorageClass,
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      kind: fc.constant("hostPath"),
      path: oneOf("/backup", "/var/backups/etcd", "/srv/etcd backups"),
      nodeName: oneOf("node-1", "n.example.com", "a"),
    },
    { requiredKeys: ["kind", "path"] },
  ),
);
const okBackup = fc.record(
  {
    schedule: okCron,
    retain: fc.integer({ min: 1, max: 1000 }),
    target: okBackupTarget,
    toolsImage: okImage,
  },
  { requiredKeys: [] },
);

/** `inCluster` of an EtcdCluster: hostPath storage only with a single member. */
const okEtcd = fc
  .record(
    {
      name: oneOf("etcd", "karmada-etcd", "e", "etcd-2", "a1", "x".repeat(45)),
      namespace: okNamespace,
      clusterDomain: okDomain,
      replicas: oneOf(1, 3, 5),
      image: okImage,
      imagePullPolicy: okPullPolicy,
      storage: okEtcdStorage,
      resources: okResources,
      labels: okLabels,
      annotations: okAnnotations,
      priorityClassName: fc.oneof(okPriorityClass, fc.constant("")),
      extraArgs: fc.dictionary(oneOf(...ETCD_TUNABLE_FLAGS), okArgValue(false), { maxKeys: 3 }),
      quotaBackendBytes: fc.oneof(
        oneOf("8Gi", "2Gi", "100Mi", "1.5Gi"),
        fc.integer({ min: 1, max: 2 ** 33 }),
      ),
      awaitWorkloads: fc.boolean(),
      deleteDataOnDestroy: fc.boolean(),
      createNamespace: fc.boolean(),
      backup: okBackup,
    },
    { requiredKeys: [] },
  )
  .map((e) => {
    const storage = e.storage as { kind?: string } | undefined;
    return storage?.kind === "hostPath" && e.replicas !== undefined ? { ...e, replicas: 1 } : e;
  });

const badSize = fc.oneof(anyHostile, oneOf<unknown>("0", "-1Gi", "1GB", "abc", "1 Gi", 5, "1e400", ""));
const badPath = fc.oneof(anyHostile, oneOf("/", "rel/x", "/a/../b", "", "..", "/a\0b"));
const badSchedule = fc.oneof(
  anyHostile,
  oneOf(
    "* * *",
    "61 * * * *",
    "@often",
    "@every 1h",
    " @daily",
    "@Daily",
    "TZ=UTC 0 * * * *",
    "0 0 * * 7",
    "*/0 * * * *",
    "0 */30 * * *",
    "0 0 30 2 *",
    "0 0 31 4,6 *",
    "0 0 * * * *",
    "0,,5 * * * *",
    "5-1 * * * *",
    "? * * * *",
    "0 0 1 JANUARY *",
    "0 0\t1 * *",
  ),
);
const ETCD_UNKNOWN = ["replica", "size", "storageClass"];

/** One hostile field of an in-cluster etcd (paths under `inCluster`). */
const hostileEtcdField: fc.Arbitrary<Mutation> = fc.oneof(
  at(fixed("name"), fc.oneof(anyHostile, oneOf("Etcd", "1etcd", "x".repeat(46), "e_1", "etcd-", "e.tcd"))),
  at(fixed("namespace"), fc.oneof(anyHostile, oneOf("x".repeat(64), "Karmada", "kube_system"))),
  at(
    fixed("clusterDomain"),
    fc.oneof(anyHostile, oneOf(`${"a".repeat(64)}.b`, "a..b", ".local", "x".repeat(254))),
  ),
  at(fixed("replicas"), fc.oneof(badReplicas, oneOf(2, 4, 7, 9))),
  // a hostPath directory holds one member only
  at(
    fixed(),
    fc.record({
      replicas: oneOf(3, 5),
      storage: fc.record({ kind: fc.constant("hostPath"), path: okHostPath }),
    }),
  ),
  at(fixed("image"), badImage),
  at(fixed("imagePullPolicy"), fc.oneof(anyHostile, oneOf("always", "IfNotPresent ", ""))),
  at(
    fixed("storage"),
    fc.oneof(
      wrongType,
      oneOf<unknown>(
        "pvc",
        { kind: "nfs" },
        { kind: "PVC" },
        { kind: "hostPath" },
        { kind: "emptydir" },
        { kind: null },
        { kind: "pvc", size: "8Gi", storageClassName: "" },
      ),
    ),
  ),
  at(
    fixed("storage"),
    badSize.map((size) => ({ kind: "pvc", size })),
  ),
  at(
    fixed("storage"),
    fc
      .oneof(anyHostile, oneOf("Standard", "a_b", "x".repeat(254)))
      .map((storageClassName) => ({ kind: "pvc", size: "8Gi", storageClassName })),
  ),
  at(
    fixed("storage"),
    badPath.map((path) => ({ kind: "hostPath", path })),
  ),
  at(fixed("resources"), badResources),
  hostileMap(fixed("labels"), labelKey, okLabelValue, fc.oneof(anyHostile, oneOf("z".repeat(64), "-x"))),
  hostileMap(fixed("annotations"), labelKey, okAnnotationValue, fc.oneof(wrongType, oneOf(5, null))),
  at(fixed("annotations"), fc.constant({ big: "x".repeat(256 * 1024) })),
  at(fixed("priorityClassName"), fc.oneof(anyHostile, oneOf("x".repeat(254), "System-node-critical"))),
  hostileMap(
    fixed("extraArgs"),
    oneOf(...ETCD_TUNABLE_FLAGS),
    okArgValue(false),
    fc.oneof(wrongType, oneOf<unknown>(5, null, true)),
  ),
  at(
    oneOf(...Object.keys(ETCD_OWNED_FLAGS)).map((flag): Path => ["extraArgs", flag]),
    oneOf("x", "1"),
  ),
  at(
    oneOf("-v", "--log-level", "V", "a b", "x=y", "", "Log-level", "a_b").map((flag): Path => [
      "extraArgs",
      flag,
    ]),
    okArgValue(false),
  ),
  at(
    fixed("quotaBackendBytes"),
    fc.oneof(
      hostileNumber,
      anyHostile,
      oneOf<unknown>("8GB", "0", "-1Gi", "1e400", "0.5", "1.5", 2 ** 53 + 2),
    ),
  ),
  at(
    oneOf("createNamespace", "awaitWorkloads", "deleteDataOnDestroy").map((k): Path => [k]),
    fc.oneof(anyHostile, oneOf<unknown>("true", "false", 1, 0)),
  ),
  at(fixed("backup"), fc.oneof(wrongType, oneOf("@daily", "yes"))),
  at(fixed("backup", "schedule"), badSchedule),
  at(fixed("backup", "retain"), fc.oneof(hostileNumber, anyHostile, oneOf(0, 1001))),
  at(
    fixed("backup", "target"),
    fc.oneof(
      wrongType,
      oneOf<unknown>(
        "pvc",
        { kind: "s3" },
        { kind: "hostPath" },
        { kind: "pvc", existingClaim: "Bad_Claim" },
        { kind: "pvc", existingClaim: "" },
        { kind: "hostPath", path: "/b", nodeName: "Node 1" },
        { kind: "hostPath", path: "/b", nodeName: "" },
      ),
    ),
  ),
  at(
    fixed("backup", "target"),
    badSize.map((size) => ({ kind: "pvc", size })),
  ),
  at(
    fixed("backup", "target"),
    badPath.map((path) => ({ kind: "hostPath", path })),
  ),
  at(fixed("backup", "toolsImage"), badImage),
  at(
    oneOf("schedules", "retention", "tools").map((k): Path => ["backup", k]),
    anyHostile,
  ),
  at(
    oneOf(...ETCD_UNKNOWN).map((k): Path => [k]),
    anyHostile,
  ),
);

/** In-cluster etcd inputs (the pipeline wraps them as `{ inCluster }`): 55% valid, 35% one hostile field, 10% broad. */
const etcdInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 55, arbitrary: okEtcd },
  { weight: 35, arbitrary: fc.tuple(okEtcd, hostileEtcdField).map(([base, m]) => mutate(base, m)) },
  { weight: 10, arbitrary: broadEtcdInput },
);

// member registrations

const okClusterName = oneOf("member-1", "m", "edge-02", "1a", "a1b2", "x".repeat(35), "x".repeat(48));
const okHttpsUrl = oneOf(
  "https://10.0.0.20:6443",
  "https://member.example.com",
  "https://[fd00::20]:6443",
  "https://member.example.com/k8s/clusters/c-1",
  "https://10.0.0.20",
  "https://member.example.com:443/",
);
const okProxyUrl = oneOf(
  "http://proxy:3128",
  "socks5://10.0.0.1:1080",
  "https://p.example.com",
  "http://user:pass@proxy.example.com:8080",
  "http://[fd00::1]:3128",
);
const okVerbs = fc.uniqueArray(
  oneOf("get", "list", "watch", "*", "create", "escalate", "bind", "impersonate"),
  {
    minLength: 1,
    maxLength: 3,
  },
);
/** RBAC rules of resources (with API groups) or of non-resource URLs. */
const okRule = fc.oneof(
  fc.record(
    {
      apiGroups: fc.uniqueArray(oneOf("", "apps", "*", "example.com", "rbac.authorization.k8s.io"), {
        minLength: 1,
        maxLength: 2,
      }),
      resources: fc.uniqueArray(oneOf("pods", "deployments", "*", "pods/log", "roles", "configmaps"), {
        minLength: 1,
        maxLength: 2,
      }),
      resourceNames: fc.uniqueArray(oneOf("a", "my-config"), { maxLength: 1 }),
      verbs: okVerbs,
    },
    { requiredKeys: ["apiGroups", "resources", "verbs"] },
  ),
  fc.record({
    nonResourceURLs: fc.uniqueArray(oneOf("/healthz", "*", "/api/*", "/metrics"), {
      minLength: 1,
      maxLength: 2,
    }),
    verbs: okVerbs,
  }),
);
/** `extraRules` only add to `leastPrivilege`. */
const okPermissions = fc.oneof(
  fc.record({ permissions: fc.constant("full"), extraRules: fc.constant([]) }, { requiredKeys: [] }),
  fc.record(
    { permissions: fc.constant("leastPrivilege"), extraRules: fc.array(okRule, { maxLength: 2 }) },
    { requiredKeys: ["permissions"] },
  ),
);
/** karmada-agent flags the registration does not own. */
const AGENT_TUNABLE_FLAGS = ["v", "kube-api-qps", "kube-api-burst", "controllers", "cluster-lease-duration"];
const okPull = fc.record(
  {
    replicas: fc.integer({ min: 1, max: 5 }),
    identity: oneOf("direct", "bootstrapToken"),
    extraArgs: fc.dictionary(oneOf(...AGENT_TUNABLE_FLAGS), okArgValue(false), { maxKeys: 2 }),
    karmadaApiEndpoint: oneOf(
      "https://karmada.example.com:5443",
      "https://10.0.0.10:32443",
      "https://[fd00::10]",
    ),
    certValidityHours: fc.oneof(oneOf(2, 24, 8760, 87600), fc.integer({ min: 2, max: 100_000 })),
    reportSecrets: fc.boolean(),
    bootstrapTokenTtlHours: fc.oneof(oneOf(0, 1, 24), fc.integer({ min: 0, max: 8760 })),
    namespace: okNamespace,
    createNamespace: fc.boolean(),
  },
  { requiredKeys: [] },
);

const okMemberCommon = {
  clusterName: okClusterName,
  apiEndpoint: okHttpsUrl,
  provider: okLabelValue,
  region: okLabelValue,
  zones: fc.uniqueArray(okLabelValue, { maxLength: 3 }),
  taints: fc.uniqueArray(
    fc.record(
      { key: labelKey, value: okLabelValue, effect: oneOf("NoSchedule", "NoExecute") },
      { requiredKeys: ["key", "effect"] },
    ),
    { maxLength: 3, selector: (t) => `${t.key}:${t.effect}` },
  ),
  proxyURL: okProxyUrl,
  credentialGeneration: fc.integer({ min: 0, max: 5 }),
  forceRemove: fc.boolean(),
};
const MEMBER_REQUIRED = ["clusterName", "mode", "apiEndpoint"] as ("clusterName" | "mode" | "apiEndpoint")[];
/** Push: `insecureSkipTLSVerification` allowed, no `pull`. */
const okPushMember = fc
  .tuple(
    fc.record(
      { ...okMemberCommon, mode: fc.constant("Push"), insecureSkipTLSVerification: fc.boolean() },
      { requiredKeys: MEMBER_REQUIRED },
    ),
    okPermissions,
  )
  .map(([m, p]) => ({ ...m, ...p }));
/** Pull: `pull` options, `insecureSkipTLSVerification` never true. */
const okPullMember = fc
  .tuple(
    fc.record(
      {
        ...okMemberCommon,
        mode: fc.constant("Pull"),
        insecureSkipTLSVerification: fc.constant(false),
        pull: okPull,
      },
      { requiredKeys: MEMBER_REQUIRED },
    ),
    okPermissions,
  )
  .map(([m, p]) => ({ ...m, ...p }));

const badHttpsUrl = fc.oneof(
  anyHostile,
  oneOf(
    "http://10.0.0.20",
    "10.0.0.20:6443",
    "https://",
    "https://u:p@member.example.com",
    "https://member.example.com?x=1",
    "https://member.example.com#f",
    "https://member.example.com:0",
    "https://member.example.com:99999",
    "https://a b",
    "https://Member.Example.com",
    "https://10.0.0.256",
    "https://[fd00::1",
    " https://member.example.com",
  ),
);
const badRule = fc.oneof(
  wrongType,
  oneOf<unknown>(
    { verbs: [] },
    { apiGroups: [""], resources: ["pods"], verbs: [] },
    { resources: ["pods"], verbs: ["get"] },
    { apiGroups: [""], verbs: ["get"] },
    { nonResourceURLs: ["/x"], apiGroups: [""], verbs: ["get"] },
    { nonResourceURLs: ["/x"], resourceNames: ["a"], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods"], nonResourceURLs: ["/x"], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods"], verbs: "get" },
    { apiGroups: "", resources: ["pods"], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods"], verbs: [5] },
    { apiGroups: [""], resources: [null], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods"], verbs: [""] },
    { apiGroups: [""], resources: [""], verbs: ["get"] },
    { nonResourceURLs: [""], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods"], verbs: ["get"], extra: ["x"] },
  ),
);

/** One hostile field of a registration of either mode. */
const hostileMemberField: fc.Arbitrary<Mutation> = fc.oneof(
  at(fixed("clusterName"), fc.oneof(anyHostile, oneOf("x".repeat(49), "Member", "-a", "a_b", "a.b"))),
  at(fixed("clusterName"), fc.constant(undefined)),
  at(fixed("mode"), fc.oneof(anyHostile, oneOf("push", "pull", "Both"))),
  at(fixed("apiEndpoint"), badHttpsUrl),
  at(
    oneOf("provider", "region").map((k): Path => [k]),
    fc.oneof(anyHostile, oneOf("z".repeat(64), "-x", "a b")),
  ),
  at(
    fixed("zones"),
    fc.oneof(
      wrongType,
      hostileString,
      oneOf<unknown>(["a", "a"], ["z".repeat(64)], ["a", 5], [null], ["a,b"]),
    ),
  ),
  at(
    fixed("taints"),
    fc.oneof(
      wrongType,
      hostileString,
      oneOf<unknown>(
        [null],
        ["NoSchedule"],
        [{ key: "a", effect: "PreferNoSchedule" }],
        [{ key: "a" }],
        [{ effect: "NoSchedule" }],
        [{ key: "a b", effect: "NoSchedule" }],
        [{ key: "a", value: "z".repeat(64), effect: "NoSchedule" }],
        [{ key: "a", value: 5, effect: "NoSchedule" }],
        [
          { key: "a", effect: "NoSchedule" },
          { key: "a", value: "x", effect: "NoSchedule" },
        ],
      ),
    ),
  ),
  at(fixed("proxyURL"), fc.oneof(anyHostile, oneOf("ftp://x", "http://", "socks4://p:1080", "proxy:3128"))),
  at(fixed("permissions"), fc.oneof(anyHostile, oneOf("Full", "admin", "leastprivilege"))),
  // extra rules only add to leastPrivilege
  at(
    fixed(),
    okRule.map((rule) => ({ permissions: "full", extraRules: [rule] })),
  ),
  at(
    fixed(),
    okRule.map((rule) => ({ permissions: undefined, extraRules: [rule] })),
  ),
  at(fixed("extraRules"), fc.oneof(wrongType, hostileString)),
  at(
    fixed(),
    badRule.map((rule) => ({ permissions: "leastPrivilege", extraRules: [rule] })),
  ),
  at(fixed("credentialGeneration"), fc.oneof(hostileNumber, anyHostile)),
  at(fixed("forceRemove"), fc.oneof(anyHostile, oneOf<unknown>("true", 1))),
  at(
    oneOf("cluster", "syncMode", "endpoint", "kubeconfig").map((k): Path => [k]),
    anyHostile,
  ),
);

/** One hostile field of a push registration (pull options given, or anything above). */
const hostilePushField = fc.oneof(
  { weight: 4, arbitrary: hostileMemberField },
  { weight: 1, arbitrary: at(fixed("pull"), okPull) },
  {
    weight: 1,
    arbitrary: at(fixed("insecureSkipTLSVerification"), fc.oneof(anyHostile, oneOf<unknown>("true", 1))),
  },
);

/** One hostile field of a pull registration (its pull options, TLS skipping, or anything above). */
const hostilePullField = fc.oneof(
  { weight: 3, arbitrary: hostileMemberField },
  {
    weight: 4,
    arbitrary: fc.oneof(
      at(fixed("insecureSkipTLSVerification"), oneOf<unknown>(true, "true", 1, "false")),
      at(fixed("pull"), fc.oneof(wrongType, oneOf("direct"))),
      at(fixed("pull", "replicas"), badReplicas),
      at(fixed("pull", "identity"), fc.oneof(anyHostile, oneOf("Direct", "token", "bootstrap"))),
      hostileMap(
        fixed("pull", "extraArgs"),
        oneOf(...AGENT_TUNABLE_FLAGS),
        okArgValue(false),
        fc.oneof(wrongType, oneOf<unknown>(5, null, true)),
      ),
      at(
        oneOf(...Object.keys(AGENT_OWNED_FLAGS)).map((flag): Path => ["pull", "extraArgs", flag]),
        oneOf("x", "1"),
      ),
      at(
        oneOf("-v", "--v", "V", "a b", "x=y", "", "a.b", "a_b").map((flag): Path => [
          "pull",
          "extraArgs",
          flag,
        ]),
        okArgValue(false),
      ),
      at(fixed("pull", "karmadaApiEndpoint"), badHttpsUrl),
      at(
        oneOf("certValidityHours", "bootstrapTokenTtlHours").map((k): Path => ["pull", k]),
        fc.oneof(hostileNumber, anyHostile, oneOf(1, 2 ** 31, 600_000, 1e9)),
      ),
      at(
        oneOf("reportSecrets", "createNamespace").map((k): Path => ["pull", k]),
        fc.oneof(anyHostile, oneOf<unknown>("true", "false", 1, 0)),
      ),
      // bootstrap-token identity: the CSR's expirationSeconds (an int32) and the token's expiry follow
      at(
        fixed("pull"),
        oneOf(596_524, 600_000, 2 ** 31, 1e9, 2 ** 53).map((certValidityHours) => ({
          identity: "bootstrapToken",
          certValidityHours,
        })),
        true,
      ),
      at(
        fixed("pull"),
        oneOf(1e6, 1e9, 3e12, 2 ** 53, 1e21).map((bootstrapTokenTtlHours) => ({
          identity: "bootstrapToken",
          bootstrapTokenTtlHours,
        })),
        true,
      ),
      at(fixed("pull", "namespace"), fc.oneof(anyHostile, oneOf("x".repeat(64), "Karmada", "kube_system"))),
      at(
        oneOf("replica", "image", "Identity").map((k): Path => ["pull", k]),
        anyHostile,
      ),
    ),
  },
);

/**
 * Member inputs: 55% fully valid (push and pull alike), 35% valid but for exactly one hostile field,
 * 10% the broad mix.
 */
const memberInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 27, arbitrary: okPushMember },
  { weight: 28, arbitrary: okPullMember },
  { weight: 15, arbitrary: fc.tuple(okPushMember, hostilePushField).map(([base, m]) => mutate(base, m)) },
  { weight: 20, arbitrary: fc.tuple(okPullMember, hostilePullField).map(([base, m]) => mutate(base, m)) },
  { weight: 10, arbitrary: broadMemberInput },
);

// addons

const BUILTIN_KINDS = Object.keys(CONTROL_PLANE_BUILTINS) as ControlPlaneBuiltin[];
/** Flags a built-in or the estimator does not own. */
const ADDON_TUNABLE_FLAGS = ["v", "kube-api-qps", "kube-api-burst", "log-flush-frequency"];
const okOverrides = fc.record(
  {
    replicas: fc.integer({ min: 1, max: 5 }),
    extraArgs: fc.dictionary(oneOf(...ADDON_TUNABLE_FLAGS), okArgValue(false), { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);
const okAddonMembers = fc.uniqueArray(
  okClusterName.map((clusterName) => ({ clusterName })),
  { minLength: 1, maxLength: 3, selector: (m) => m.clusterName },
);
/** Built-ins run on the host, without members; the estimator on the host, one per member. */
const okBuiltinAddon = fc.record(
  {
    kind: oneOf(...BUILTIN_KINDS),
    target: fc.constant("host"),
    overrides: okOverrides,
    members: fc.constant([]),
  },
  { requiredKeys: ["kind"] },
);
const okEstimatorAddon = fc.record(
  {
    kind: fc.constant("schedulerEstimator"),
    target: fc.constant("host"),
    overrides: okOverrides,
    members: okAddonMembers,
  },
  { requiredKeys: ["kind", "members"] },
);
/** Generic kinds (validated only: their objects are the user's): members exactly with target "members". */
const okGenericAddon = fc
  .tuple(
    fc.oneof(
      fc.record({
        kind: fc.constant("manifests"),
        manifests: oneOf<unknown>(
          { yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" },
          { objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }] },
        ),
      }),
      fc.record({
        kind: fc.constant("helm"),
        helm: fc.record(
          {
            chart: oneOf("oci://example.com/chart", "./chart", "nginx"),
            version: oneOf("1.2.3"),
            repo: oneOf("https://charts.example.com"),
            namespace: okNamespace,
          },
          { requiredKeys: ["chart"] },
        ),
      }),
    ),
    fc.oneof(
      fc.record({ target: oneOf("controlPlane", "host") }, { requiredKeys: [] }),
      fc.record({ target: fc.constant("members"), members: okAddonMembers }),
    ),
  )
  .map(([a, t]) => ({ ...a, ...t }));
const okAddon = fc.oneof(
  { weight: 4, arbitrary: okBuiltinAddon },
  { weight: 4, arbitrary: okEstimatorAddon },
  { weight: 1, arbitrary: okGenericAddon },
);

/** Flags the addon's kind owns (none for generic kinds). */
function addonOwnedFlags(kind: unknown): string[] {
  if (kind === "schedulerEstimator") return Object.keys(ESTIMATOR_OWNED_FLAGS);
  if (typeof kind === "string" && kind in CONTROL_PLANE_BUILTINS)
    return Object.keys(CONTROL_PLANE_OWNED_FLAGS[CONTROL_PLANE_BUILTINS[kind as ControlPlaneBuiltin]] ?? {});
  return [];
}

/** One hostile field of an addon (owned flags of its own kind). */
const hostileAddonField = (base: Record<string, unknown>): fc.Arbitrary<Mutation> => {
  const owned = addonOwnedFlags(base.kind);
  return fc.oneof(
    at(fixed("kind"), fc.oneof(anyHostile, oneOf("estimator", "Descheduler", "constructor", "toString"))),
    at(fixed("target"), fc.oneof(anyHostile, oneOf("members", "controlPlane", "Host", "member"))),
    at(fixed("overrides"), fc.oneof(wrongType, oneOf("replicas=2"))),
    at(fixed("overrides", "replicas"), badReplicas),
    hostileMap(
      fixed("overrides", "extraArgs"),
      oneOf(...ADDON_TUNABLE_FLAGS),
      okArgValue(false),
      fc.oneof(wrongType, oneOf<unknown>(5, null, true)),
    ),
    ...(owned.length > 0
      ? [
          at(
            oneOf(...owned).map((flag): Path => ["overrides", "extraArgs", flag]),
            oneOf("x", "1"),
          ),
        ]
      : []),
    at(
      oneOf("-v", "--v", "V", "a b", "x=y", "", "a.b", "a_b").map((flag): Path => [
        "overrides",
        "extraArgs",
        flag,
      ]),
      okArgValue(false),
    ),
    at(
      fixed("manifests"),
      oneOf<unknown>({ yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" }, {}),
    ),
    at(fixed("helm"), oneOf<unknown>({ chart: "./chart" }, {}, { chart: "" }, { chart: 5 })),
    at(
      fixed("members"),
      oneOf<unknown>([], [{ clusterName: "m" }, { clusterName: "m" }], [{ clusterName: "m" }]),
    ),
    at(
      fixed("members"),
      fc
        .oneof(anyHostile, oneOf("x".repeat(49), "Member", "-a", "a_b", "a.b"))
        .map((clusterName) => [{ clusterName: "member-1" }, { clusterName }]),
    ),
    at(
      oneOf("type", "override", "member", "Overrides").map((k): Path => [k]),
      anyHostile,
    ),
  );
};

/**
 * Addon inputs (built-ins and the estimator mostly, generic kinds validated only): 55% fully valid,
 * 35% valid but for exactly one hostile field, 10% the broad mix.
 */
const addonInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 55, arbitrary: okAddon },
  {
    weight: 35,
    arbitrary: okAddon.chain((base) => hostileAddonField(base).map((m) => mutate(base, m))),
  },
  { weight: 10, arbitrary: broadAddonInput },
);

// ---------------------------------------------------------------------------------------------------
// the pipelines (as the components run them) and the property

/** Settings of a default control plane (what addons and member agents take images and namespace from). */
const BASE: ControlPlaneSettings = resolveControlPlaneSettings("karmada", {}, { endpoints: ETCD_ENDPOINTS });

/** Placeholders filled with real values (the test cluster's CA stands in for Karmada's). */
function fill(objects: readonly KubeObject[], caPem: string, apiServerUrl: string): KubeObject[] {
  const values = {
    [PLACEHOLDERS.caBundle]: Buffer.from(caPem).toString("base64"),
    [PLACEHOLDERS.caCrt]: caPem,
    [PLACEHOLDERS.apiServerUrl]: apiServerUrl,
    [PLACEHOLDERS.certificatesChecksum]: certificatesChecksum([caPem]),
  };
  return objects.map(
    (obj) =>
      substitute<string>(obj, values, { interpolate: (parts) => parts.join("") }) as unknown as KubeObject,
  );
}

type Pipeline = (input: any, caPem: string) => KubeObject[];

/** PEM of a certificate request for the agent identity (bootstrap-token CSRs; set before any run). */
let agentCsrPem = "";

/** `input` with the real test key wherever a machine's privateKey is the {@link SSH_KEY} stand-in. */
function withSshKey(input: any): any {
  const machines = isRecord(input) && isRecord(input.hosts) ? input.hosts.machines : undefined;
  if (!Array.isArray(machines) || !machines.some((m) => isRecord(m) && m.privateKey === SSH_KEY))
    return input;
  return {
    ...input,
    hosts: {
      ...input.hosts,
      machines: machines.map((m) =>
        isRecord(m) && m.privateKey === SSH_KEY ? { ...m, privateKey: TEST_SSH_KEY } : m,
      ),
    },
  };
}

/** KarmadaControlPlane: mode, validation, defaults, certificates, host workloads, Karmada-side objects. */
const controlPlanePipeline: Pipeline = (input, caPem) => {
  const { settings, hosts } = resolveControlPlaneMode("karmada", withSshKey(input), ETCD_ENDPOINTS);
  const table = controlPlaneCertificates(settings);
  if (hosts) {
    hostsCertificates(table, hosts);
    planControlPlaneHosts(settings, hosts, () => ""); // every host script (as the component renders them)
  }
  const url = externalApiServerUrl(settings);
  const groups = karmadaApiObjects(settings, hosts ? hostsKarmadaApiOptions(settings, hosts, undefined) : {});
  const host = hosts
    ? []
    : [namespaceObject(settings.namespace), ...Object.values(hostWorkloadManifests(settings)).flat()];
  return fill([...host, ...Object.values(groups).flat()].filter(isCoreKind), caPem, url);
};

/** EtcdCluster inCluster mode (input wrapped as `{ inCluster }`, field prefix `inCluster`). */
const etcdPipeline: Pipeline = (input) => {
  const { createNamespace = true, ...inCluster } = input.inCluster ?? {};
  // as the component (components/etcd/plan.ts)
  if (typeof createNamespace !== "boolean")
    throw new ConfigError("inCluster.createNamespace", `${String(createNamespace)} is not a boolean`);
  const settings = resolveEtcdInClusterSettings({ namespace: "karmada-system", ...inCluster }, "inCluster");
  etcdInClusterPlacement(settings);
  const manifests = etcdInClusterManifests(settings);
  return [
    ...(createNamespace ? [namespaceObject(settings.namespace)] : []),
    ...manifests.cluster,
    ...manifests.backup,
  ];
};

/** MemberRegistration: member-side objects (push or pull) and the agent's core-kind objects in Karmada. */
const memberPipeline: Pipeline = (input) => {
  validateMemberConfig(input);
  const settings = resolveMemberSettings(input);
  const pull = settings.pull;
  const agent = BASE.components["karmada-agent"];
  // the Cluster is a Karmada CRD kind: built (it must not throw), not dry-run
  const objects = memberObjects(
    settings,
    pull && {
      image: agent.image,
      imagePullPolicy: agent.imagePullPolicy,
      awaitRollout: false,
      rotationTrigger: "0",
    },
  );
  const credentials = objects.credentials
    ? [
        ...objects.credentials.namespace,
        ...objects.credentials.accounts,
        ...objects.credentials.roles,
        objects.credentials.tokens.credential,
        objects.credentials.tokens.impersonator,
      ]
    : [];
  if (!pull) return credentials;
  // the agent's identity (components/members/identity.ts): for a bootstrap token, the token Secret and
  // the agent's CSR in Karmada, both core kinds
  const identity = agentIdentityObjects(settings, Date.now());
  const token = identity.bootstrapToken;
  const bootstrap: KubeObject[] = token
    ? [
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: token.secret.name, namespace: token.secret.namespace },
          type: token.secret.type,
          stringData: { ...token.data, "token-secret": "0123456789abcdef" },
        },
        {
          ...token.csr,
          spec: { ...(token.csr.spec as object), request: Buffer.from(agentCsrPem).toString("base64") },
        },
      ]
    : [];
  return [
    ...objects.agent!.namespace,
    ...objects.agent!.access,
    ...objects.agent!.deployment,
    ...objects.karmada.executionNamespace,
    ...objects.karmada.rbac,
    ...credentials,
    ...bootstrap,
  ].filter(isCoreKind);
};

/** Addon (built-ins and the scheduler estimator; generic manifests/helm only validated). */
const addonPipeline: Pipeline = (input, caPem) => {
  // as the component: `args.members ?? []`
  const members = (input.members ?? []) as { clusterName: string }[];
  validateAddonConfig(
    input,
    members.map((m) => m.clusterName),
  );
  const overrides = input.overrides ?? {};
  if (input.kind in CONTROL_PLANE_BUILTINS) {
    const kind = input.kind as ControlPlaneBuiltin;
    const settings = builtinSettings(BASE, kind, overrides);
    builtinCertificates(settings, kind);
    return fill([...builtinWorkloads(settings, kind), ...builtinApiObjects(settings, kind)], caPem, "");
  }
  if (input.kind === "schedulerEstimator") {
    return members.flatMap((m) => {
      estimatorCertificate(BASE, m.clusterName);
      return estimatorManifests(BASE, m.clusterName, overrides);
    });
  }
  return [];
};

/** A field path split into keys: `a.b["k"][0]` → dotted pieces (which may join back: `example.com/gpu`), keys, indices. */
type Segment = { dotted: string } | { key: string } | { index: number };

function parseField(field: string): Segment[] | undefined {
  const segments: Segment[] = [];
  let i = 0;
  while (i < field.length) {
    if (field[i] === "[") {
      if (field[i + 1] === '"') {
        // a JSON string up to the closing quote
        let j = i + 2;
        while (j < field.length && field[j] !== '"') j += field[j] === "\\" ? 2 : 1;
        if (field[j + 1] !== "]") return undefined;
        segments.push({ key: JSON.parse(field.slice(i + 1, j + 1)) });
        i = j + 2;
      } else {
        const m = /^\[(\d+)\]/.exec(field.slice(i));
        if (!m) return undefined;
        segments.push({ index: Number(m[1]) });
        i += m[0].length;
      }
    } else {
      if (field[i] === ".") {
        if (i === 0) return undefined;
        i++;
      }
      let j = i;
      while (j < field.length && field[j] !== "." && field[j] !== "[") j++;
      if (j === i) return undefined;
      segments.push({ dotted: field.slice(i, j) });
      i = j;
    }
  }
  return segments.length > 0 ? segments : undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";
const has = (v: unknown, key: string | number): boolean =>
  isRecord(v) && Object.prototype.hasOwnProperty.call(v, key);

/**
 * Whether `segments` name a path in `value`: every key present, through objects and arrays only (never
 * into a string's characters). A missing tail of field names is a required setting (`hosts.machines`,
 * `helm.chart` without `helm`); a missing last entry key or index is one only under a map or array.
 */
function pathIn(value: unknown, segments: Segment[], i = 0): boolean {
  if (i === segments.length) return true;
  const s = segments[i];
  const last = i === segments.length - 1;
  if ("index" in s) {
    if (has(value, s.index) && Array.isArray(value)) return pathIn(value[s.index], segments, i + 1);
    return last && Array.isArray(value);
  }
  if ("key" in s) {
    if (has(value, s.key) && !Array.isArray(value))
      return pathIn((value as Record<string, unknown>)[s.key], segments, i + 1);
    return last && isRecord(value) && !Array.isArray(value);
  }
  // dotted pieces may be one key containing dots (`resources.limits.example.com/gpu`)
  for (let j = i; j < segments.length && "dotted" in segments[j]; j++) {
    const key = segments
      .slice(i, j + 1)
      .map((p) => (p as { dotted: string }).dotted)
      .join(".");
    if (has(value, key) && pathIn((value as Record<string, unknown>)[key], segments, j + 1)) return true;
  }
  // a missing field (and fields under it, `helm.chart` without `helm`): a required setting
  return segments.slice(i).every((p) => "dotted" in p);
}

/** Inputs judged and those that got past validation to the API server, per pipeline. */
interface Reach {
  inputs: number;
  dryRuns: number;
}

/** What was wrong with one run (undefined: the property holds). */
type Verdict = string | undefined;

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : `non-Error thrown: ${String(e)}`;
}

/** Runs a pipeline on one input: field-named ConfigErrors, or manifests the API server accepts. */
async function judge(
  pipeline: Pipeline,
  input: unknown,
  runner: DryRunner,
  caPem: string,
  reach: Reach,
): Promise<Verdict> {
  reach.inputs++;
  let objects: KubeObject[];
  try {
    objects = pipeline(input, caPem);
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof ConfigErrors)) return `threw ${describeError(e)}`;
    const errors = configErrorsOf(e);
    if (errors.length === 0) return `ConfigErrors without any error: ${e.message}`;
    const misnamed = errors.filter((err) => {
      const segments = typeof err.field === "string" && err.field !== "" ? parseField(err.field) : undefined;
      return !segments || !pathIn(input, segments);
    });
    if (misnamed.length > 0) {
      return `rejected with field(s) not in the input: ${misnamed.map((err) => JSON.stringify(err.field)).join(", ")} — ${e.message}`;
    }
    return undefined;
  }
  let results: DryRunResult[];
  try {
    reach.dryRuns++;
    results = await runner.dryRunAll(objects);
  } catch (e) {
    return `dry run failed: ${describeError(e)}`;
  }
  const rejected = results.filter((r) => !accepted(r));
  if (rejected.length === 0) return undefined;
  return `accepted by validation, rejected by kube-apiserver:\n${rejected
    .map((r) => `  - ${r.object}: HTTP ${r.status} ${r.message ?? ""}`)
    .join("\n")}`;
}

/**
 * `CONFIG_PROPERTY_COLLECT=<n>`: sample n inputs per pipeline and report every distinct failure class
 * (with its smallest input) instead of stopping at the first counterexample — for triage.
 */
const COLLECT = Number(process.env.CONFIG_PROPERTY_COLLECT ?? 0);

/** A failure's class: where it threw in lib/, or the message with values blanked out. */
function failureClass(verdict: string): string {
  const frame = /\((\/[^)]*\/lib\/[^)]+)\)/.exec(verdict);
  if (verdict.startsWith("threw") && frame) {
    return `${/^threw (\w+)/.exec(verdict)?.[1]} @ ${frame[1].replace(/^.*?\/lib\//, "lib/")}`;
  }
  const misnamed = /^rejected with field\(s\) not in the input: (.*?) — /.exec(verdict);
  if (misnamed)
    return `misnamed ${misnamed[1].replace(/\\"(?:[^"\\]|\\[^"])*\\"/g, "…").replace(/\d+/g, "N")}`;
  return (
    verdict
      .split("\n")
      .filter((line) => !/^\s+at /.test(line))
      // the rejected object's namespace/name and the offending value are the input's, not the class's
      .map((line) => line.replace(/^(\s+- \S+) \S+: /, "$1 …: "))
      .join(" | ")
      .replace(/typed patch object \([^)]*\)/g, "typed patch object (…)")
      .replace(/(expected \w+, got ).*?(?= \||$)/g, "$1…")
      .replace(/"(?:[^"\\]|\\.)*"/g, "…")
      .replace(/\d+/g, "N")
      .slice(0, 300)
  );
}

tier.describe(
  "generated settings: field-named rejection or manifests the real kube-apiserver accepts",
  () => {
    let cluster: LoopbackCluster;
    let runner: DryRunner;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);

    beforeAll(async () => {
      process.on("unhandledRejection", onUnhandled);
      cluster = await startCluster({
        name: "config-property",
        address: ADDRESS,
        controllerManager: false,
      });
      runner = new DryRunner(cluster.credentials, { concurrency: 8 });
      // the API server parses a CSR's request: a real one, with the subject karmadactl register uses
      agentCsrPem = openssl([
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "/dev/null",
        "-subj",
        "/O=system:karmada:agents/CN=system:karmada:agent:member",
      ]);
    });
    /** Per pipeline: inputs judged and how many reached the dry run (logged once, after all of them). */
    const reached = new Map<string, Reach>();
    afterAll(async () => {
      if (reached.size > 0) {
        console.log(
          `inputs that reached the kube-apiserver dry run:\n${[...reached.entries()]
            .map(
              ([name, r]) =>
                `  ${name}: ${r.dryRuns}/${r.inputs} (${((100 * r.dryRuns) / Math.max(r.inputs, 1)).toFixed(0)}%)`,
            )
            .join("\n")}`,
        );
      }
      process.off("unhandledRejection", onUnhandled);
      runner?.close();
      await cluster?.stop();
    });
    afterEach(() => {
      expect(unhandled.map(describeError)).toEqual([]);
    });

    const cases: [string, fc.Arbitrary<unknown>, Pipeline, keyof typeof RUNS][] = [
      [
        "control plane (containerized and hosts mode)",
        controlPlaneInput,
        controlPlanePipeline,
        "controlPlane",
      ],
      ["in-cluster etcd", etcdInput.map((inCluster) => ({ inCluster })), etcdPipeline, "etcd"],
      ["member registration (push and pull)", memberInput, memberPipeline, "members"],
      ["addons (built-ins and scheduler estimator)", addonInput, addonPipeline, "addons"],
    ];

    it.each(cases)("%s", async (_, arbitrary, pipeline, key) => {
      const reach: Reach = { inputs: 0, dryRuns: 0 };
      reached.set(key, reach);
      /** The share that reached the dry run stays above the pipeline's floor. */
      const expectReach = () => {
        const share = reach.dryRuns / Math.max(reach.inputs, 1);
        if (share < REACH_FLOOR[key]) {
          throw new Error(
            `only ${reach.dryRuns} of ${reach.inputs} ${key} inputs reached the dry run (floor ${100 * REACH_FLOOR[key]}%): the generator has become too hostile`,
          );
        }
      };
      if (COLLECT > 0) {
        // exploration: every distinct failure class with its smallest input, instead of the first one
        const classes = new Map<string, { input: unknown; verdict: string; count: number }>();
        for (const input of fc.sample(arbitrary, { numRuns: COLLECT })) {
          const verdict = await judge(pipeline, input, runner, cluster.caCertPem, reach);
          if (verdict === undefined) continue;
          const key = failureClass(verdict);
          const seen = classes.get(key);
          const size = JSON.stringify(input)?.length ?? 0;
          if (!seen || size < (JSON.stringify(seen.input)?.length ?? 0))
            classes.set(key, { input, verdict, count: (seen?.count ?? 0) + 1 });
          else seen.count++;
        }
        const report = [...classes.entries()].map(
          ([key, c]) => `### ${key} (×${c.count})\ninput: ${fc.stringify(c.input)}\n${c.verdict}`,
        );
        process.stderr.write(`${COLLECT} inputs, ${reach.dryRuns} reached the API server\n`);
        expect(report).toEqual([]);
        expectReach();
        return;
      }
      await fc.assert(
        fc.asyncProperty(arbitrary, async (input) => {
          const verdict = await judge(pipeline, input, runner, cluster.caCertPem, reach);
          if (verdict !== undefined) throw new Error(verdict);
        }),
        { numRuns: RUNS[key] },
      );
      expectReach();
    });
  },
);
