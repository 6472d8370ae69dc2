/**
 * The estates the console serves: the stacks of one Pulumi program, read and driven through the
 * Automation API. Outputs are summarized (endpoint, members with their Ready condition read from Karmada,
 * certificate expiry); secret outputs are used inside the server only (the admin kubeconfig to ask
 * Karmada) and never returned.
 */
import * as path from "node:path";
import {
  ConfigMap,
  EngineEvent,
  LocalWorkspace,
  OutputMap,
  PulumiCommand,
  Stack,
} from "@pulumi/pulumi/automation";
import { callApi } from "../../lib/kube/rest";
import { apiAccessFromKubeconfig } from "../../lib/kubeconfig/access";
import type { PreviewStep } from "../../lib/preview/digest";
import { parseUrn } from "../../lib/preview/urn";
import { ConsoleSettings } from "./settings";

/** A member cluster of an estate, as Karmada reports it. */
interface MemberStatus {
  readonly name: string;
  /** `Push` or `Pull`. */
  readonly mode: string;
  /** The Cluster's Ready condition: `True`, `False`, or `Unknown` (not read, or not reported yet). */
  readonly ready: "True" | "False" | "Unknown";
  /** The condition's reason or why it could not be read. */
  readonly reason?: string;
}

/** A control-plane certificate's expiry. */
export interface CertificateStatus {
  readonly name: string;
  /** RFC 3339. */
  readonly notAfter: string;
  /** Whole days from now to `notAfter` (negative once expired). */
  readonly daysLeft: number;
}

/** What the console shows of an estate. */
export interface EstateSummary {
  readonly stack: string;
  /** Whether the stack has been deployed (has outputs). */
  readonly deployed: boolean;
  readonly apiEndpoint?: string;
  readonly members: readonly MemberStatus[];
  readonly certificates: readonly CertificateStatus[];
  /** When its last update ended, RFC 3339. */
  readonly lastUpdate?: string;
  readonly resourceCount?: number;
}

/** One component of an estate's dependency picture. */
interface GraphNode {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
}

/** The estate's top-level components and which waits for which (`from` depends on `to`). */
export interface DependencyGraph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly { readonly from: string; readonly to: string }[];
}

/** A stack setting as the console shows it: secrets by key only. */
export interface SettingValue {
  readonly key: string;
  readonly secret: boolean;
  /** The value (JSON-parsed when it is JSON); absent for a secret. */
  readonly value?: unknown;
}

const DAY_MS = 86_400_000;

/** Certificate expiry of the `certificateExpiry` output, soonest first. */
export function certificateStatuses(expiry: unknown, nowMs: number): CertificateStatus[] {
  if (!expiry || typeof expiry !== "object") return [];
  return Object.entries(expiry as Record<string, unknown>)
    .filter((e): e is [string, string] => typeof e[1] === "string" && !Number.isNaN(Date.parse(e[1])))
    .map(([name, notAfter]) => ({
      name,
      notAfter,
      daysLeft: Math.floor((Date.parse(notAfter) - nowMs) / DAY_MS),
    }))
    .sort((a, b) => a.daysLeft - b.daysLeft || a.name.localeCompare(b.name));
}

/** The Ready condition of each Cluster in a Karmada `ClusterList`, by name. */
export function readyConditions(
  list: any,
): Map<string, { ready: "True" | "False" | "Unknown"; reason?: string }> {
  const out = new Map<string, { ready: "True" | "False" | "Unknown"; reason?: string }>();
  for (const item of Array.isArray(list?.items) ? list.items : []) {
    const condition = (item?.status?.conditions ?? []).find((c: any) => c?.type === "Ready");
    const status = condition?.status;
    out.set(String(item?.metadata?.name), {
      ready: status === "True" || status === "False" ? status : "Unknown",
      ...(condition?.reason ? { reason: String(condition.reason) } : {}),
    });
  }
  return out;
}

/** Top-level components of a deployment and the dependencies between them. */
export function dependencyGraph(resources: readonly any[]): DependencyGraph {
  const stackUrn = resources.find((r) => r.type === "pulumi:pulumi:Stack")?.urn;
  const parentOf = new Map<string, string | undefined>(resources.map((r) => [r.urn, r.parent]));
  const topOf = (urn: string): string | undefined => {
    let current: string | undefined = urn;
    for (let i = 0; current !== undefined && i < 1000; i++) {
      const parent = parentOf.get(current);
      if (parent === stackUrn) return current;
      current = parent;
    }
    return undefined;
  };
  const nodes = resources
    .filter(
      (r) =>
        r.parent === stackUrn && stackUrn !== undefined && !String(r.type).startsWith("pulumi:providers:"),
    )
    .map((r) => ({ urn: r.urn as string, type: r.type as string, name: parseUrn(r.urn).name }));
  const known = new Set(nodes.map((n) => n.urn));
  const edges = new Map<string, { from: string; to: string }>();
  for (const r of resources) {
    const from = topOf(r.urn);
    if (!from || !known.has(from)) continue;
    for (const dep of [
      ...(r.dependencies ?? []),
      ...Object.values(r.propertyDependencies ?? {}).flat(),
    ] as string[]) {
      const to = topOf(dep);
      if (to && to !== from && known.has(to)) edges.set(`${from} ${to}`, { from, to });
    }
  }
  return { nodes, edges: [...edges.values()] };
}

/** A step of the engine's events, in the preview digest's form (lib/preview/digest.ts). */
export function previewStepOf(event: EngineEvent): PreviewStep | undefined {
  const metadata = event.resourcePreEvent?.metadata;
  if (!metadata) return undefined;
  const state = (s: typeof metadata.old) =>
    s ? { urn: s.urn, type: s.type, custom: s.custom, parent: s.parent } : undefined;
  return {
    op: metadata.op,
    urn: metadata.urn,
    provider: metadata.provider,
    oldState: state(metadata.old),
    newState: state(metadata.new),
    diffReasons: metadata.diffs ?? [],
    replaceReasons: metadata.op === "replace" ? (metadata.keys ?? []) : [],
  };
}

/** The program's stacks through the Automation API. */
export class Estates {
  private command?: Promise<PulumiCommand>;

  constructor(private readonly settings: ConsoleSettings) {}

  private async workspace(): Promise<LocalWorkspace> {
    // PulumiCommand looks for <root>/bin/pulumi
    this.command ??= PulumiCommand.get({ root: path.dirname(path.dirname(this.settings.pulumiBinary)) });
    return LocalWorkspace.create({
      workDir: this.settings.programDir,
      envVars: { ...this.settings.engineEnv },
      pulumiCommand: await this.command,
    });
  }

  /** Names of the program's stacks. */
  async stackNames(): Promise<string[]> {
    const stacks = await (await this.workspace()).listStacks();
    return stacks.map((s) => s.name).sort();
  }

  /** The stack `name` (which must exist). */
  async stack(name: string): Promise<Stack> {
    return Stack.select(name, await this.workspace());
  }

  /** Every secret the stack holds in plain text: its secret settings and secret outputs. */
  async secrets(stack: Stack): Promise<string[]> {
    const config: ConfigMap = await stack.getAllConfig();
    const outputs: OutputMap = await stack.outputs();
    return [
      ...Object.values(config)
        .filter((c) => c.secret)
        .map((c) => c.value),
      ...Object.values(outputs)
        .filter((o) => o.secret)
        .flatMap((o) => (typeof o.value === "string" ? [o.value] : [JSON.stringify(o.value), o.value])),
    ];
  }

  /** The stack's settings, secrets by key only. */
  async settingsOf(stack: Stack): Promise<SettingValue[]> {
    const config = await stack.getAllConfig();
    return Object.entries(config)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, c]) =>
        c.secret ? { key, secret: true } : { key, secret: false, value: parseJson(c.value) },
      );
  }

  /** The estate's summary; members' Ready read from Karmada with the admin kubeconfig (kept here). */
  async summary(stack: Stack, nowMs = Date.now()): Promise<EstateSummary> {
    const outputs = await stack.outputs();
    const history = await stack.history(1).catch(() => []);
    const last = history[0];
    const base = {
      stack: stack.name,
      lastUpdate: last?.endTime ? new Date(last.endTime).toISOString() : undefined,
      resourceCount: last?.resourceChanges
        ? Object.entries(last.resourceChanges)
            .filter(([op]) => op !== "delete")
            .reduce((n, [, c]) => n + c, 0)
        : undefined,
    };
    if (Object.keys(outputs).length === 0) return { ...base, deployed: false, members: [], certificates: [] };
    const declared = Array.isArray(outputs.memberClusters?.value) ? outputs.memberClusters.value : [];
    const conditions = await this.clusterConditions(outputs.adminKubeconfig?.value);
    const members = declared.map((m: any): MemberStatus => {
      const found = conditions.ok ? conditions.byName.get(m.name) : undefined;
      return {
        name: String(m.name),
        mode: String(m.mode),
        ready: found?.ready ?? "Unknown",
        ...(found?.reason ? { reason: found.reason } : !conditions.ok ? { reason: conditions.reason } : {}),
      };
    });
    return {
      ...base,
      deployed: true,
      apiEndpoint: typeof outputs.apiEndpoint?.value === "string" ? outputs.apiEndpoint.value : undefined,
      members,
      certificates: certificateStatuses(outputs.certificateExpiry?.value, nowMs),
    };
  }

  /** The Clusters' Ready conditions, or why they could not be read (never the kubeconfig's content). */
  private async clusterConditions(
    kubeconfig: unknown,
  ): Promise<{ ok: true; byName: ReturnType<typeof readyConditions> } | { ok: false; reason: string }> {
    if (typeof kubeconfig !== "string")
      return { ok: false, reason: "the stack has no adminKubeconfig output" };
    try {
      const answer = await callApi(
        apiAccessFromKubeconfig(kubeconfig),
        "GET",
        "/apis/cluster.karmada.io/v1alpha1/clusters",
        undefined,
        5_000,
      );
      if (answer.status !== 200) return { ok: false, reason: `karmada-apiserver answered ${answer.status}` };
      return { ok: true, byName: readyConditions(answer.body) };
    } catch (e) {
      return { ok: false, reason: `karmada-apiserver not reachable: ${(e as Error).message.split("\n")[0]}` };
    }
  }

  /** The estate's dependency picture, from its state (only URNs, types and dependencies are read). */
  async graph(stack: Stack): Promise<DependencyGraph> {
    const deployment = await stack.exportStack();
    return dependencyGraph(deployment.deployment?.resources ?? []);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
