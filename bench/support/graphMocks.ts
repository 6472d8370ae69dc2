/**
 * Pulumi mocks for the graph-construction bench: a mock monitor that answers every registration and read
 * with the outputs our components read back (PEMs, random strings, token Secret data, the kube-system
 * UID), counts what it answered and, when asked, records each request's shape (type, name, parent,
 * provider, dependencies, inputs) so that a bare program can register exactly the same graph.
 */
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import * as settings from "@pulumi/pulumi/runtime/settings";
import * as state from "@pulumi/pulumi/runtime/state";

/** One request the monitor answered, as recorded: enough to register the same resource again. */
export interface RecordedRequest {
  /** `register` for a new resource, `read` for `Resource.get`. */
  readonly op: "register" | "read";
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly custom: boolean;
  /** URN of the parent; empty for none. */
  readonly parent: string;
  /** Provider reference `<urn>::<id>`; empty for none. */
  readonly provider: string;
  /** Every resource it waited for: explicit `dependsOn` and those its inputs came from. */
  readonly dependencies: string[];
  /** Inputs as sent; secrets still wrapped in the wire format's secret marker. */
  readonly inputs: Record<string, unknown>;
  /** The id of a read. */
  readonly id?: string;
  /** Resource options that change how the engine diffs or deletes it (replays of a stack's state). */
  readonly options?: RecordedOptions;
}

/** The resource options a stack's state keeps that change how the engine diffs or deletes a resource. */
export interface RecordedOptions {
  readonly protect?: boolean;
  readonly retainOnDelete?: boolean;
  readonly deleteBeforeReplace?: boolean;
  readonly ignoreChanges?: string[];
  readonly replaceOnChanges?: string[];
  readonly additionalSecretOutputs?: string[];
  /** In the wire format, secrets marked as in `inputs`. */
  readonly replacementTrigger?: unknown;
  /** URN of the resource whose deletion skips this one's. */
  readonly deletedWith?: string;
}

/** What the monitor answered, counted per kind of request. */
export interface MonitorCounts {
  registrations: number;
  reads: number;
}

const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
const base64 = (text: string) => Buffer.from(text).toString("base64");

/**
 * The state a resource reports back: its inputs plus the outputs the components read (certificate and
 * key PEMs, a random string, a filled ServiceAccount token Secret, the kube-system UID of a member).
 */
function cannedState(type: string, name: string, inputs: Record<string, unknown>, id?: string) {
  switch (type) {
    case "tls:index/privateKey:PrivateKey":
      return { ...inputs, privateKeyPem: pem("PRIVATE KEY", name), publicKeyPem: pem("PUBLIC KEY", name) };
    case "tls:index/selfSignedCert:SelfSignedCert":
    case "tls:index/locallySignedCert:LocallySignedCert":
      return { ...inputs, certPem: pem("CERTIFICATE", name), validityEndTime: "2036-01-01T00:00:00Z" };
    case "tls:index/certRequest:CertRequest":
      return { ...inputs, certRequestPem: pem("CERTIFICATE REQUEST", name) };
    case "random:index/randomString:RandomString":
    case "random:index/randomPassword:RandomPassword":
      return { ...inputs, result: "abcdef0123456789abcdef0123456789" };
    case "kubernetes:core/v1:Secret":
      return (inputs as { type?: string }).type === "kubernetes.io/service-account-token"
        ? { ...inputs, data: { token: base64(`token-${name}`), "ca.crt": base64(pem("CERTIFICATE", name)) } }
        : inputs;
    case "kubernetes:core/v1:Namespace":
      return id === "kube-system"
        ? { ...inputs, metadata: { name: "kube-system", uid: `uid-${name}` } }
        : inputs;
    default:
      return inputs;
  }
}

type Callback = (err: unknown, res: unknown) => void;

/** The mock monitor: canned state, counts, and (optionally) the requests it answered. */
class BenchMonitor extends MockMonitor {
  constructor(
    readonly counts: MonitorCounts,
    private readonly recorded: RecordedRequest[] | undefined,
  ) {
    super({
      newResource: (args) => ({
        id: args.custom ? (args.id ?? `${args.name}-id`) : undefined,
        state: cannedState(args.type, args.name, args.inputs, args.id),
      }),
      call: (args) => args.inputs,
    });
  }

  async registerResource(req: any, callback: Callback): Promise<void> {
    this.counts.registrations++;
    this.recorded?.push({
      op: "register",
      ...this.common(req),
      custom: req.getCustom(),
      dependencies: [
        ...new Set<string>([
          ...req.getDependenciesList(),
          ...[...req.getPropertydependenciesMap().entries()].flatMap(([, deps]: [string, any]) =>
            deps.getUrnsList(),
          ),
        ]),
      ],
      inputs: req.getObject()?.toJavaScript() ?? {},
    });
    return super.registerResource(req, callback);
  }

  async readResource(req: any, callback: Callback): Promise<void> {
    this.counts.reads++;
    this.recorded?.push({
      op: "read",
      ...this.common(req),
      custom: true,
      dependencies: req.getDependenciesList(),
      inputs: req.getProperties()?.toJavaScript() ?? {},
      id: req.getId(),
    });
    return super.readResource(req, callback);
  }

  private common(req: any) {
    const parent: string = req.getParent() ?? "";
    return {
      type: req.getType() as string,
      name: req.getName() as string,
      urn: (this as unknown as { newUrn(p: string, t: string, n: string): string }).newUrn(
        parent,
        req.getType(),
        req.getName(),
      ),
      parent,
      provider: (req.getProvider() as string) ?? "",
    };
  }
}

/**
 * Installs the bench's mocks (as `pulumi.runtime.setMocks` does, all features but output values) and
 * returns the live counts; with `record`, every request is appended to it.
 */
export function installBenchMocks(record?: RecordedRequest[]): MonitorCounts {
  const counts: MonitorCounts = { registrations: 0, reads: 0 };
  settings.setMockOptions(new BenchMonitor(counts, record), "project", "stack", false);
  const store = (state as any).getStore();
  Object.assign(store, {
    supportsSecrets: true,
    supportsResourceReferences: true,
    supportsOutputValues: false,
    supportsDeletedWith: true,
    supportsAliasSpecs: true,
    supportsTransforms: false,
  });
  return counts;
}

/**
 * Resolves once every registration the program started has been answered, as at the end of a program
 * run (`disconnect` drains the outstanding requests first).
 */
export function graphSettled(): Promise<void> {
  return settings.disconnect();
}
