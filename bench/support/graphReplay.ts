/**
 * The bench's bare Pulumi program: registers exactly the requests a recorded run of our components made
 * — same types through the same SDK classes (the typed @pulumi/kubernetes classes and kubernetes
 * Provider, tls, random and command classes, a plain ComponentResource for each component), same names,
 * parents, providers and inputs (secret values as `pulumi.secret`), and every recorded dependency as a
 * plain `dependsOn` array. It is the cheapest hand-written program that produces the same graph: no
 * rendering, no validation, no Outputs between resources.
 */
import * as command from "@pulumi/command";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import { RecordedRequest } from "./graphMocks";

type AnyClass = new (name: string, args: any, opts?: any) => pulumi.Resource;
type Readable = { get(name: string, id: string, opts?: pulumi.CustomResourceOptions): pulumi.Resource };

/** SDK modules by package name, as the type tokens spell them. */
const PACKAGES: Readonly<Record<string, any>> = { kubernetes: k8s, tls, random, command };

/**
 * The typed @pulumi/kubernetes class of `kubernetes:<group>/<version>:<Kind>` for built-in groups
 * (`core`, `apps`, `*.k8s.io` named by their first label), else undefined (a custom resource).
 */
function kubernetesClass(module: string, kind: string): AnyClass | undefined {
  const [group, version] = module.split("/");
  const builtIn = !group.includes(".") || group.endsWith(".k8s.io");
  return builtIn ? (k8s as any)[group.split(".")[0]]?.[version]?.[kind] : undefined;
}

/** A provider registered by package name, its inputs as given (the dynamic providers' `pulumi-nodejs`). */
class PlainProvider extends pulumi.ProviderResource {
  constructor(pkg: string, name: string, args: pulumi.Inputs, opts?: pulumi.CustomResourceOptions) {
    super(pkg, name, args, opts);
  }
}

/**
 * Settings the typed kubernetes Provider class sends JSON-encoded (@pulumi/kubernetes provider.js wraps
 * each in `pulumi.output(…).apply(JSON.stringify)`); the recorded wire form is decoded for it.
 */
const KUBERNETES_ENCODED_SETTINGS = new Set([
  "alwaysRender",
  "deleteUnreachable",
  "enableConfigMapMutable",
  "enablePatchForce",
  "enableSecretMutable",
  "enableServerSideApply",
  "helmReleaseSettings",
  "kubeClientSettings",
  "skipUpdateUnreachable",
  "suppressDeprecationWarnings",
  "suppressHelmHookWarnings",
  "upsertExistingObjects",
]);

/**
 * A kubernetes provider through the typed class, as a hand-written program declares one (and as our
 * program and its users do), from its recorded wire-form inputs.
 */
class TypedKubernetesProvider extends k8s.Provider {
  constructor(name: string, recorded: Record<string, unknown>, opts?: pulumi.CustomResourceOptions) {
    const decode = ([key, value]: [string, unknown]) =>
      [
        key,
        KUBERNETES_ENCODED_SETTINGS.has(key) && typeof value === "string" ? JSON.parse(value) : value,
      ] as const;
    super(name, Object.fromEntries(Object.entries(recorded).map(decode)) as k8s.ProviderArgs, opts);
  }
}

/** A custom resource registered by type token, its inputs as given (a dynamic resource's carry its provider). */
class PlainResource extends pulumi.CustomResource {
  constructor(type: string, name: string, args: pulumi.Inputs, opts?: pulumi.CustomResourceOptions) {
    super(type, name, args, opts);
  }
}

/** How {@link replayGraph} registers kubernetes providers. */
export type KubernetesProviders = "typed" | "as-recorded";

/**
 * The SDK class a custom resource or provider of type `type` is registered with. A state's provider
 * inputs hold what the engine added (its plugin version), which the typed class would not pass on:
 * replays of a state send them `as-recorded`.
 */
function classOf(type: string, kubernetesProviders: KubernetesProviders = "typed"): AnyClass {
  const [pkg, module, kind] = type.split(":");
  if (type === "pulumi:providers:kubernetes" && kubernetesProviders === "typed") {
    return TypedKubernetesProvider as unknown as AnyClass;
  }
  // another package's recorded provider inputs are sent as recorded (the wire form its class would make)
  if (pkg === "pulumi" && module === "providers") return PlainProvider.bind(undefined, kind);
  if (pkg === "pulumi-nodejs") return PlainResource.bind(undefined, type);
  if (pkg === "kubernetes") return kubernetesClass(module, kind) ?? k8s.apiextensions.CustomResource;
  const found = PACKAGES[pkg]?.[module === "index" || module.startsWith("index/") ? kind : module]?.[kind];
  const cls = found ?? PACKAGES[pkg]?.[kind];
  if (!cls) throw new Error(`graph replay: no SDK class for ${type}`);
  return cls;
}

/** Recorded inputs with every wire-format secret turned back into `pulumi.secret`. */
export function withSecrets(value: unknown): any {
  if (Array.isArray(value)) return value.map(withSecrets);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (record[specialSigKey] === specialSecretSig) return pulumi.secret(withSecrets(record.value));
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, withSecrets(v)]));
  }
  return value;
}

/** A component as a hand-written program declares one: registered, children under it, outputs closed. */
class BareComponent extends pulumi.ComponentResource {
  constructor(type: string, name: string, opts: pulumi.ComponentResourceOptions) {
    super(type, name, {}, opts);
    this.registerOutputs({});
  }
}

/** Registers the recorded graph again, in the recorded order (parents, providers, dependencies first). */
export function replayGraph(
  requests: readonly RecordedRequest[],
  kubernetesProviders: KubernetesProviders = "typed",
): void {
  const byUrn = new Map<string, pulumi.Resource>();
  const resource = (urn: string) => {
    const found = byUrn.get(urn);
    if (!found) throw new Error(`graph replay: ${urn} is used before it is registered`);
    return found;
  };
  for (const r of requests) {
    const providerUrn = r.provider ? r.provider.slice(0, r.provider.lastIndexOf("::")) : "";
    const opts = {
      parent: r.parent ? resource(r.parent) : undefined,
      provider: providerUrn ? (resource(providerUrn) as pulumi.ProviderResource) : undefined,
      dependsOn: r.dependencies.map(resource),
      ...r.options,
      replacementTrigger:
        r.options?.replacementTrigger === undefined ? undefined : withSecrets(r.options.replacementTrigger),
      deletedWith: r.options?.deletedWith ? resource(r.options.deletedWith) : undefined,
    };
    let created: pulumi.Resource;
    if (r.op === "read") {
      created = (classOf(r.type) as unknown as Readable).get(r.name, r.id!, opts);
    } else if (!r.custom) {
      created = new BareComponent(r.type, r.name, opts);
    } else {
      created = new (classOf(r.type, kubernetesProviders))(r.name, withSecrets(r.inputs), opts);
    }
    byUrn.set(r.urn, created);
  }
}
