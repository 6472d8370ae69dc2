/**
 * Pulumi mocks that record every registered resource WITH the parts of the register request that the
 * stock `setMocks` drops: parent, dependencies, secret-ness of each input, additionalSecretOutputs,
 * replacement trigger, protect/retainOnDelete/deletedWith, aliased types. Graph tests assert on these records.
 */
import * as pulumi from "@pulumi/pulumi";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import * as settings from "@pulumi/pulumi/runtime/settings";
import * as state from "@pulumi/pulumi/runtime/state";

/** Signature the Pulumi wire format uses to mark a secret value. */
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export interface Registration {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly custom: boolean;
  readonly parentUrn: string;
  readonly dependencies: string[];
  /** Resources whose outputs flow into this resource's inputs (dependsOn edges excluded). */
  readonly inputDependencies: string[];
  /** Inputs with secrets unwrapped. */
  readonly inputs: Record<string, any>;
  /** Top-level and nested input paths whose value was sent as a secret. */
  readonly secretPaths: string[];
  readonly additionalSecretOutputs: string[];
  readonly replacementTrigger: unknown;
  /** Whether a replacement deletes the old resource before creating the new one. */
  readonly deleteBeforeReplace: boolean;
  readonly protect: boolean;
  readonly retainOnDelete: boolean;
  /** URN of the resource whose deletion skips this one's; empty for none. */
  readonly deletedWith: string;
  /** The resource types it is also known by (aliases that name another type). */
  readonly aliasTypes: string[];
  readonly provider: string;
}

function collectSecrets(value: any, path: string, out: string[]): any {
  if (value && typeof value === "object") {
    if (value[pulumi.runtime.specialSigKey] === SECRET_SIG) {
      out.push(path);
      return collectSecrets(value.value, path, []);
    }
    if (Array.isArray(value)) return value.map((v, i) => collectSecrets(v, `${path}[${i}]`, out));
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, collectSecrets(v, path ? `${path}.${k}` : k, out)]),
    );
  }
  return value;
}

/** Canned state for resources whose outputs our code reads (PEMs, passwords). */
function cannedState(
  type: string,
  name: string,
  inputs: Record<string, any>,
  replacementTrigger?: unknown,
): Record<string, any> {
  switch (type) {
    case "tls:index/privateKey:PrivateKey":
      return {
        ...inputs,
        privateKeyPem: `-----BEGIN PRIVATE KEY-----\n${name}\n-----END PRIVATE KEY-----\n`,
        publicKeyPem: `-----BEGIN PUBLIC KEY-----\n${name}\n-----END PUBLIC KEY-----\n`,
      };
    case "tls:index/selfSignedCert:SelfSignedCert":
    case "tls:index/locallySignedCert:LocallySignedCert":
      return {
        ...inputs,
        // a renewed certificate (new replacement trigger) has new content, as with the real provider
        certPem: `-----BEGIN CERTIFICATE-----\n${name}${replacementTrigger ? ` ${JSON.stringify(replacementTrigger)}` : ""}\n-----END CERTIFICATE-----\n`,
        validityEndTime: "2036-01-01T00:00:00Z",
      };
    case "tls:index/certRequest:CertRequest":
      return {
        ...inputs,
        certRequestPem: `-----BEGIN CERTIFICATE REQUEST-----\n${name}\n-----END CERTIFICATE REQUEST-----\n`,
      };
    case "random:index/randomPassword:RandomPassword":
    case "random:index/randomString:RandomString":
      return { ...inputs, result: "abcdef0123456789abcdef0123456789".slice(0, inputs.length ?? 16) };
    default:
      return inputs;
  }
}

class RecordingMonitor extends MockMonitor {
  /** Replacement triggers by resource name: a certificate renewed by its trigger gets a new PEM. */
  private readonly triggers: Map<string, unknown>;

  constructor(private readonly records: Registration[]) {
    const triggers = new Map<string, unknown>();
    super({
      newResource: (args: pulumi.runtime.MockResourceArgs) => ({
        id: args.custom ? `${args.name}-id` : undefined,
        state: cannedState(args.type, args.name, args.inputs, triggers.get(args.name)),
      }),
      call: (args: pulumi.runtime.MockCallArgs) => args.inputs,
    });
    this.triggers = triggers;
  }

  /** Tolerates outputs of a resource registered with a previous monitor (tests swap monitors). */
  registerResourceOutputs(req: any, callback: (err: any, res: any) => void): void {
    if (!(this as any).resources.has(req.getUrn())) return callback(null, {});
    return super.registerResourceOutputs(req, callback);
  }

  async registerResource(req: any, callback: (err: any, res: any) => void): Promise<void> {
    const secretPaths: string[] = [];
    const inputs = collectSecrets(req.getObject()?.toJavaScript() ?? {}, "", secretPaths);
    const urn = (this as any).newUrn(req.getParent(), req.getType(), req.getName());
    const replacementTrigger = req.getReplacementTrigger?.()?.toJavaScript();
    this.triggers.set(req.getName(), replacementTrigger);
    this.records.push({
      type: req.getType(),
      name: req.getName(),
      urn,
      custom: req.getCustom(),
      parentUrn: req.getParent(),
      dependencies: req.getDependenciesList(),
      inputDependencies: [
        ...new Set<string>(
          [...req.getPropertydependenciesMap().entries()].flatMap(([, deps]: [string, any]) =>
            deps.getUrnsList(),
          ),
        ),
      ],
      inputs,
      secretPaths,
      additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
      replacementTrigger,
      deleteBeforeReplace: req.getDeletebeforereplace?.() ?? false,
      protect: req.getProtect() ?? false,
      retainOnDelete: req.getRetainondelete() ?? false,
      deletedWith: req.getDeletedwith() ?? "",
      aliasTypes: (req.getAliasesList?.() ?? [])
        .map((alias: any) => alias.getSpec?.()?.getType?.() ?? "")
        .filter((type: string) => type !== ""),
      provider: req.getProvider(),
    });
    return super.registerResource(req, callback);
  }
}

/** Installs recording mocks; returns the live list of registrations. */
export function recordResources(opts: { preview?: boolean; stack?: string } = {}): Registration[] {
  const records: Registration[] = [];
  settings.setMockOptions(
    new RecordingMonitor(records),
    "project",
    opts.stack ?? "stack",
    opts.preview ?? false,
  );
  const store = (state as any).getStore();
  store.supportsSecrets = true;
  store.supportsResourceReferences = true;
  store.supportsOutputValues = false;
  store.supportsDeletedWith = true;
  store.supportsAliasSpecs = true;
  store.supportsTransforms = false;
  return records;
}

/** Resolves once every resource registered so far (and their outputs) has settled. */
export async function settle(...resources: pulumi.Resource[]): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await Promise.all(resources.map((r) => new Promise((resolve) => r.urn.apply(resolve))));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads an Output's value. */
export function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

/** True when the Output is marked secret. */
export function isSecret(output: pulumi.Output<unknown>): Promise<boolean> {
  return pulumi.isSecret(output);
}

/** Looks up one registration by type (suffix match allowed) and name; fails loudly when absent. */
export function find(records: Registration[], type: string, name: string): Registration {
  const hit = records.find((r) => (r.type === type || r.type.endsWith(type)) && r.name === name);
  if (!hit) {
    const names = records.filter((r) => r.type.endsWith(type)).map((r) => r.name);
    throw new Error(`no ${type} named ${name}; registered: ${names.join(", ")}`);
  }
  return hit;
}
