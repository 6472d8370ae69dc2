/**
 * The one recording mock of the Pulumi engine, for the graph tests and the graph bench: a mock monitor
 * that answers every registration and read with the outputs our components read back (PEMs, random
 * strings and, with `controllers`, what a real estate's controllers fill in), counts what it answered and,
 * when asked, records each request WITH the parts the stock `setMocks` drops: parent, dependencies, the
 * secret-ness of each input, additionalSecretOutputs, replacement trigger, protect/retainOnDelete/
 * deletedWith, aliased types — and the inputs as sent, so that a bare program can register the same graph.
 */
import * as pulumi from "@pulumi/pulumi";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import * as settings from "@pulumi/pulumi/runtime/settings";
import * as state from "@pulumi/pulumi/runtime/state";

/** Signature the Pulumi wire format uses to mark a secret value. */
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** A registered resource, as the monitor was asked for it. */
export interface Registration {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly custom: boolean;
  readonly parentUrn: string;
  /** Explicit dependencies (`dependsOn`, the parent's). */
  readonly dependencies: string[];
  /** Resources whose outputs flow into this resource's inputs (dependsOn edges excluded). */
  readonly inputDependencies: string[];
  /** Inputs with secrets unwrapped. */
  readonly inputs: Record<string, any>;
  /** Inputs as sent: secrets still wrapped in the wire format's secret marker. */
  readonly wireInputs: Record<string, unknown>;
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
  /** Provider reference `<urn>::<id>`; empty for none. */
  readonly provider: string;
}

/** A resource the program read (`Resource.get`) rather than registered. */
interface Read {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly parentUrn: string;
  readonly id: string;
  /** Provider reference `<urn>::<id>`; empty for none. */
  readonly provider: string;
  readonly dependencies: string[];
  /** Properties as sent. */
  readonly wireInputs: Record<string, unknown>;
}

/** One request the monitor answered, in the order it answered them. */
export type RecordedCall = ({ readonly op: "register" } & Registration) | ({ readonly op: "read" } & Read);

/** What the monitor answered, counted per kind of request. */
interface MonitorCounts {
  registrations: number;
  reads: number;
}

/** The installed mocks: live counts and, when recording, live lists. */
export interface RecordingMocks {
  readonly counts: MonitorCounts;
  /** Every registration (empty unless recording). */
  readonly registrations: Registration[];
  /** Every read (empty unless recording). */
  readonly reads: Read[];
  /** Registrations and reads in the order they were answered (empty unless recording). */
  readonly calls: RecordedCall[];
  /**
   * Whether outputs are filled as a real estate's controllers would: the member's token controller
   * (ServiceAccount token Secrets), Karmada's CSR signer (agent CSRs) and the member API's kube-system
   * Namespace (its UID is the cluster id). Values are derived from resource names, so members differ.
   */
  controllers: boolean;
}

const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
const base64 = (text: string) => Buffer.from(text).toString("base64");

/** The token the simulated token controller writes into the Secret registered as `resourceName`. */
export const simulatedToken = (resourceName: string): string => `sa-token-${resourceName}`;
/** The member CA the simulated token controller writes as `ca.crt`. */
export const simulatedMemberCa = (provider: string): string =>
  pem("CERTIFICATE", `member-ca-${provider.split("::").pop()}`);
/** The certificate the simulated signer issues for the CSR registered as `resourceName`. */
export const simulatedSignedCert = (resourceName: string): string =>
  pem("CERTIFICATE", `signed-${resourceName}`);

/** What the resource's (mock) provider reports back: its inputs plus the outputs our components read. */
interface Answered {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, any>;
  /** A read's id. */
  readonly id?: string;
  readonly provider?: string;
  /** A renewed certificate (new replacement trigger) has new content, as with the real provider. */
  readonly replacementTrigger?: unknown;
}

function cannedState(a: Answered, controllers: boolean): Record<string, any> {
  switch (a.type) {
    case "tls:index/privateKey:PrivateKey":
      return {
        ...a.inputs,
        privateKeyPem: pem("PRIVATE KEY", a.name),
        publicKeyPem: pem("PUBLIC KEY", a.name),
      };
    case "tls:index/selfSignedCert:SelfSignedCert":
    case "tls:index/locallySignedCert:LocallySignedCert":
      return {
        ...a.inputs,
        certPem: pem(
          "CERTIFICATE",
          `${a.name}${a.replacementTrigger ? ` ${JSON.stringify(a.replacementTrigger)}` : ""}`,
        ),
        validityEndTime: "2036-01-01T00:00:00Z",
      };
    case "tls:index/certRequest:CertRequest":
      return { ...a.inputs, certRequestPem: pem("CERTIFICATE REQUEST", a.name) };
    case "random:index/randomPassword:RandomPassword":
    case "random:index/randomString:RandomString":
      return { ...a.inputs, result: "abcdef0123456789abcdef0123456789".slice(0, a.inputs.length ?? 16) };
  }
  if (!controllers) return a.inputs;
  if (a.type === "kubernetes:core/v1:Secret" && a.inputs.type === "kubernetes.io/service-account-token") {
    const data = {
      token: base64(simulatedToken(a.name)),
      "ca.crt": base64(simulatedMemberCa(a.provider ?? "")),
    };
    return { ...a.inputs, data };
  }
  if (a.type === "kubernetes:core/v1:Namespace" && a.id === "kube-system") {
    return { ...a.inputs, metadata: { name: "kube-system", uid: `uid-${a.name}` } };
  }
  if (a.type === "kubernetes:certificates.k8s.io/v1:CertificateSigningRequest") {
    return { ...a.inputs, status: { certificate: base64(simulatedSignedCert(a.name)) } };
  }
  return a.inputs;
}

/** `value` with secrets unwrapped; the path of each secret is appended to `out`. */
function unwrapSecrets(value: any, path: string, out: string[]): any {
  if (value && typeof value === "object") {
    if (value[pulumi.runtime.specialSigKey] === SECRET_SIG) {
      out.push(path);
      return unwrapSecrets(value.value, path, []);
    }
    if (Array.isArray(value)) return value.map((v, i) => unwrapSecrets(v, `${path}[${i}]`, out));
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v, path ? `${path}.${k}` : k, out)]),
    );
  }
  return value;
}

type Callback = (err: unknown, res: unknown) => void;

class RecordingMonitor extends MockMonitor {
  /** Replacement triggers by resource name: a certificate renewed by its trigger gets a new PEM. */
  private readonly triggers = new Map<string, unknown>();
  /** Names of the resources being read (the base class answers a read through `newResource` too). */
  private readonly reading = new Set<string>();

  constructor(
    private readonly recording: RecordingMocks,
    private readonly record: boolean,
  ) {
    super({
      newResource: (args) => ({
        // a read keeps the id it asked for; a registration gets one from its name
        id: this.reading.has(args.name) ? args.id : args.custom ? `${args.name}-id` : undefined,
        state: cannedState(
          { ...args, replacementTrigger: this.triggers.get(args.name) },
          this.recording.controllers,
        ),
      }),
      call: (args) => args.inputs,
    });
  }

  /** Tolerates outputs of a resource registered with a previous monitor (tests swap monitors). */
  registerResourceOutputs(req: any, callback: Callback): void {
    if (!(this as any).resources.has(req.getUrn())) return callback(null, {});
    return super.registerResourceOutputs(req, callback);
  }

  async registerResource(req: any, callback: Callback): Promise<void> {
    this.recording.counts.registrations++;
    const replacementTrigger = req.getReplacementTrigger?.()?.toJavaScript();
    if (replacementTrigger !== undefined) this.triggers.set(req.getName(), replacementTrigger);
    if (this.record) {
      const wireInputs = req.getObject()?.toJavaScript() ?? {};
      const secretPaths: string[] = [];
      const registration: Registration = {
        ...this.common(req),
        custom: req.getCustom(),
        dependencies: req.getDependenciesList(),
        inputDependencies: [
          ...new Set<string>(
            [...req.getPropertydependenciesMap().entries()].flatMap(([, deps]: [string, any]) =>
              deps.getUrnsList(),
            ),
          ),
        ],
        inputs: unwrapSecrets(wireInputs, "", secretPaths),
        wireInputs,
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
      };
      this.recording.registrations.push(registration);
      this.recording.calls.push({ op: "register", ...registration });
    }
    return super.registerResource(req, callback);
  }

  async readResource(req: any, callback: Callback): Promise<void> {
    this.recording.counts.reads++;
    if (this.record) {
      const read: Read = {
        ...this.common(req),
        id: req.getId(),
        dependencies: req.getDependenciesList(),
        wireInputs: req.getProperties()?.toJavaScript() ?? {},
      };
      this.recording.reads.push(read);
      this.recording.calls.push({ op: "read", ...read });
    }
    this.reading.add(req.getName());
    return super.readResource(req, callback);
  }

  private common(req: any) {
    const parentUrn: string = req.getParent() ?? "";
    return {
      type: req.getType() as string,
      name: req.getName() as string,
      urn: (this as unknown as { newUrn(p: string, t: string, n: string): string }).newUrn(
        parentUrn,
        req.getType(),
        req.getName(),
      ),
      parentUrn,
      provider: (req.getProvider() as string) ?? "",
    };
  }
}

/** Options of {@link installRecordingMocks}. */
export interface RecordingMocksOptions {
  /** Whether to record each request (the bench's timed runs only count). @default true */
  readonly record?: boolean;
  /** See {@link RecordingMocks.controllers}. @default false */
  readonly controllers?: boolean;
  /** @default false */
  readonly preview?: boolean;
  /** @default "stack" */
  readonly stack?: string;
}

/**
 * Installs the recording mocks (as `pulumi.runtime.setMocks` does, every feature but output values) and
 * returns their live counts and records.
 */
export function installRecordingMocks(options: RecordingMocksOptions = {}): RecordingMocks {
  const mocks: RecordingMocks = {
    counts: { registrations: 0, reads: 0 },
    registrations: [],
    reads: [],
    calls: [],
    controllers: options.controllers ?? false,
  };
  settings.setMockOptions(
    new RecordingMonitor(mocks, options.record ?? true),
    "project",
    options.stack ?? "stack",
    options.preview ?? false,
  );
  Object.assign((state as any).getStore(), {
    supportsSecrets: true,
    supportsResourceReferences: true,
    supportsOutputValues: false,
    supportsDeletedWith: true,
    supportsAliasSpecs: true,
    supportsTransforms: false,
  });
  return mocks;
}

/** The recording mocks installed last (undefined before any). */
export function currentRecordingMocks(): RecordingMocks | undefined {
  const monitor = settings.getMonitor() as unknown;
  return monitor instanceof RecordingMonitor
    ? (monitor as unknown as { recording: RecordingMocks }).recording
    : undefined;
}
