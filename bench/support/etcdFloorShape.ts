/**
 * The shape of the engine floor's graph (see bench/support/etcdFloor.ts): what bench/support/etcdFloorProgram.ts
 * registers, derived from the state an etcd-on-hosts run left. Imports nothing at run time, so the floor
 * program loads no more than the resources it registers need.
 */
import type { HostInput } from "../../devkit/programs/etcd-hosts/input";

/** Environment variable naming the floor program's shape file. */
export const FLOOR_SHAPE_ENV = "PK_ETCD_FLOOR_SHAPE";

/** One custom resource of the floor graph. */
interface FloorResource {
  readonly name: string;
  readonly kind: "tls" | "random" | "command";
  readonly parent?: string;
  readonly dependsOn: readonly string[];
  /** Host name a command runs on. */
  readonly host?: string;
  /** Whether ours runs a script on delete (the floor then runs `true`). */
  readonly hasDelete?: boolean;
  /** Bumped where ours updated the resource. */
  readonly revision: number;
  /** Bumped where ours replaced it. */
  readonly replaceRevision: number;
}

/** The floor program's input: components, resources in registration order, the hosts' SSH settings. */
export interface FloorShape {
  readonly components: readonly { readonly name: string; readonly type: string; readonly parent?: string }[];
  readonly resources: readonly FloorResource[];
  readonly hosts: Readonly<
    Record<
      string,
      Required<Pick<HostInput, "address" | "port" | "privateKey">> & {
        readonly user: string;
        readonly hostKey?: string;
      }
    >
  >;
}

/** The name part of a URN. */
const nameOf = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);

/** A resource of an exported deployment (the fields the floor reads). */
interface StateResource {
  urn: string;
  type: string;
  custom?: boolean;
  parent?: string;
  dependencies?: string[];
  inputs?: { connection?: unknown; delete?: unknown };
}

/** Signature key of a secret in an exported deployment (`{ [sig]: …, plaintext: "<json>" }`). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** An exported value with its secret wrapper (if any) removed. */
function revealed(value: unknown): any {
  if (value && typeof value === "object" && SECRET_SIG in value) {
    const text = (value as { plaintext?: string }).plaintext;
    return text === undefined ? undefined : JSON.parse(text);
  }
  return value;
}

/**
 * The floor graph of the deployment `state` (from `stack.exportStack()`): every component and custom
 * resource but the stack and providers. `previous` is the floor shape the run started from and `ops`
 * the operation our run took per resource name, so that revisions are bumped where ours updated or
 * replaced; `hosts` are the bed's hosts (matched by address and SSH port).
 */
export function floorShape(
  state: { deployment: { resources?: StateResource[] } },
  hosts: readonly HostInput[],
  previous?: FloorShape,
  ops: ReadonlyMap<string, string> = new Map(),
): FloorShape {
  const resources = (state.deployment.resources ?? []).filter(
    (r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:"),
  );
  const kept = new Set(resources.map((r) => r.urn));
  const parentOf = (r: StateResource) => (r.parent && kept.has(r.parent) ? nameOf(r.parent) : undefined);
  const before = new Map((previous?.resources ?? []).map((r) => [r.name, r]));
  const hostAt = (address?: string, port?: number) =>
    hosts.find((h) => h.address === address && (h.port ?? 22) === port)?.name;
  return {
    components: resources
      .filter((r) => r.custom === false)
      .map((r) => ({ name: nameOf(r.urn), type: r.type, parent: parentOf(r) })),
    resources: resources
      .filter((r) => r.custom !== false)
      .map((r): FloorResource => {
        const name = nameOf(r.urn);
        const op = ops.get(name) ?? "same";
        const was = before.get(name);
        const kind = r.type.startsWith("tls:") ? "tls" : r.type.startsWith("random:") ? "random" : "command";
        if (kind === "command" && r.type !== "command:remote:Command")
          throw new Error(`floor: no stand-in for ${r.type}`);
        const connection = revealed(r.inputs?.connection) as { host?: string; port?: number } | undefined;
        const host = kind === "command" ? hostAt(connection?.host, connection?.port) : undefined;
        if (kind === "command" && !host) throw new Error(`floor: ${name} runs on no bed host`);
        return {
          name,
          kind,
          parent: parentOf(r),
          dependsOn: (r.dependencies ?? []).filter((d) => kept.has(d)).map(nameOf),
          ...(host ? { host, hasDelete: Boolean(revealed(r.inputs?.delete)) } : {}),
          revision: (was?.revision ?? 0) + (op === "update" ? 1 : 0),
          replaceRevision: (was?.replaceRevision ?? 0) + (op.includes("replace") ? 1 : 0),
        };
      }),
    hosts: Object.fromEntries(
      hosts.map((h) => [
        h.name,
        {
          address: h.address,
          port: h.port ?? 22,
          user: h.user ?? "root",
          privateKey: h.privateKey,
          hostKey: h.hostKey,
        },
      ]),
    ),
  };
}
