/**
 * The bare program's requests taken from a stack's state instead of a mock run: every resource of a
 * deployment exported with `pulumi stack export --show-secrets`, in the state's order (parents,
 * providers and dependencies first), with the inputs and resource options the state recorded. Against a
 * copy of that state, a faithful replay previews with no changes — it is what the engine, the SDK and
 * the providers cost for exactly these resources, without any of our rendering or wiring.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { RecordedOptions, RecordedRequest } from "./graphMocks";

/** The signature `pulumi stack export --show-secrets` marks a secret with (its `plaintext` is JSON). */
const EXPORTED_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

const STACK_TYPE = "pulumi:pulumi:Stack";

/** One resource of an exported deployment, the fields a replay reads (its options at the top level). */
interface ExportedResource extends RecordedOptions {
  readonly urn: string;
  readonly custom: boolean;
  readonly type: string;
  readonly id?: string;
  readonly parent?: string;
  readonly provider?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
  readonly dependencies?: string[];
  readonly external?: boolean;
}

/** The part of `pulumi stack export` a replay reads. */
export interface ExportedDeployment {
  readonly deployment: { readonly resources?: readonly ExportedResource[] };
}

/** The name part of a provider reference `<urn>::<id>`, whose URN ends `::<name>`. */
function providerName(reference: string): string {
  const parts = reference.split("::");
  return parts[parts.length - 2] ?? "";
}

/** Whether a provider reference names a default provider (the SDK picks those itself). */
export function isDefaultProvider(reference: string): boolean {
  return reference.includes("::pulumi:providers:") && providerName(reference).startsWith("default");
}

/** Exported values with each exported secret in the wire format's secret marker (graphReplay.ts). */
export function wireSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(wireSecrets);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (record[specialSigKey] === EXPORTED_SECRET_SIG) {
      const plaintext = record.plaintext;
      const inner: unknown = typeof plaintext === "string" ? JSON.parse(plaintext) : plaintext;
      return { [specialSigKey]: specialSecretSig, value: wireSecrets(inner) };
    }
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, wireSecrets(v)]));
  }
  return value;
}

const OPTION_KEYS: readonly (keyof RecordedOptions)[] = [
  "protect",
  "retainOnDelete",
  "deleteBeforeReplace",
  "ignoreChanges",
  "replaceOnChanges",
  "additionalSecretOutputs",
  "replacementTrigger",
  "deletedWith",
];

/** The options a resource's state records, only those set; undefined for none. */
function recordedOptions(r: ExportedResource): RecordedOptions | undefined {
  const set = OPTION_KEYS.filter((key) => r[key] !== undefined).map((key) => [key, wireSecrets(r[key])]);
  return set.length ? Object.fromEntries(set) : undefined;
}

/**
 * The requests that register a deployment's resources again: the stack itself and default providers
 * left out (the SDK registers those), children of the stack without a parent, reads for resources the
 * state marks external.
 */
export function requestsOfDeployment(exported: ExportedDeployment): RecordedRequest[] {
  const resources = exported.deployment.resources ?? [];
  const stack = resources.find((r) => r.type === STACK_TYPE)?.urn;
  const nameOf = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);
  const replayed = (r: ExportedResource) =>
    r.type !== STACK_TYPE && !(r.type.startsWith("pulumi:providers:") && nameOf(r.urn).startsWith("default"));
  return resources.filter(replayed).map((r) => {
    const options = recordedOptions(r);
    return {
      op: r.external ? "read" : "register",
      type: r.type,
      name: nameOf(r.urn),
      urn: r.urn,
      custom: r.custom,
      parent: r.parent && r.parent !== stack ? r.parent : "",
      provider: r.provider && !isDefaultProvider(r.provider) ? r.provider : "",
      dependencies: r.dependencies ?? [],
      inputs: wireSecrets(r.inputs ?? {}) as Record<string, unknown>,
      ...(r.external ? { id: r.id } : {}),
      ...(options ? { options } : {}),
    };
  });
}

/** The stack's outputs, secrets in the wire format's marker. */
export function stackOutputsOfDeployment(exported: ExportedDeployment): Record<string, unknown> {
  const stack = (exported.deployment.resources ?? []).find((r) => r.type === STACK_TYPE);
  return (wireSecrets(stack?.outputs ?? {}) as Record<string, unknown>) ?? {};
}
