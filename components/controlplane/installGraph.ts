/**
 * The `dependsOn` of a control plane's resources, wired from its mode's install order
 * (lib/controlplane/installOrder.ts): each phase records the resources it registered, and a phase's
 * resources depend on those of the phases it comes after. Some phases register later than the phases
 * that wait for them are wired (the CRDs once their bundle loaded; on hosts, the Karmada side after every
 * command): their resources are promised, and the edges are the same once they resolve.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  InstallPhase,
  InstallStep,
  THROUGH_KARMADA_PROVIDER,
  installOrderProblems,
} from "../../lib/controlplane/installOrder";
import { dependsOnLater } from "./dependencies";

type Resources = readonly pulumi.Resource[];

/** One phase's resources: known once recorded, promised from the first time anything waits for them. */
interface PhaseRecord {
  known?: Resources;
  promise: Promise<Resources>;
  resolve: (resources: Resources | Promise<Resources>) => void;
  recorded: boolean;
}

export class InstallGraph {
  private readonly steps: ReadonlyMap<InstallPhase, InstallStep>;
  private readonly records = new Map<InstallPhase, PhaseRecord>();

  constructor(order: readonly InstallStep[]) {
    const problems = installOrderProblems(order);
    if (problems.length) throw new Error(`install order: ${problems.join("; ")}`);
    this.steps = new Map(order.map((s) => [s.phase, s]));
  }

  /** Records what `phase` registered, now or once promised. */
  done(phase: InstallPhase, resources: Resources | Promise<Resources>): void {
    const record = this.record(phase);
    if (record.recorded) throw new Error(`install order: ${phase} recorded twice`);
    record.recorded = true;
    if (Array.isArray(resources)) record.known = resources as Resources;
    // a rejection (a CRD bundle that failed to load) reaches those who wait for the phase; this
    // bookkeeping must not make it an unhandled one of its own
    else
      void (resources as Promise<Resources>).then(
        (r) => (record.known = r),
        () => undefined,
      );
    record.resolve(resources);
  }

  /** Throws unless every phase was recorded: a phase never recorded would leave its dependents waiting. */
  assertComplete(): void {
    const missing = [...this.steps.keys()].filter((p) => !this.records.get(p)?.recorded);
    if (missing.length) throw new Error(`install order: never recorded: ${missing.join(", ")}`);
  }

  /** `phase`'s resources, which must be recorded already (for what needs them as values, not edges). */
  known(phase: InstallPhase): Resources {
    const known = this.records.get(phase)?.known;
    if (!known) throw new Error(`install order: ${phase} is needed before it is recorded`);
    return known;
  }

  /**
   * The `dependsOn` of `phase`'s resources: the resources of the phases it comes after — a plain list when
   * they are all known, else the known ones and one promised entry. The Karmada provider's phase is left
   * out for the phases that go through it: they wait for it by using it.
   */
  dependsOn(phase: InstallPhase): pulumi.Input<pulumi.Resource>[] {
    const { known, pending } = this.split(phase);
    if (pending.length === 0) return known;
    return dependsOnLater(
      known,
      Promise.all(pending).then((lists) => lists.flat()),
    );
  }

  /** The same resources as {@link dependsOn}, as one promise (for the hosts' command prerequisites). */
  awaitedBefore(phase: InstallPhase): Promise<pulumi.Resource[]> {
    const { known, pending } = this.split(phase);
    return Promise.all(pending).then((lists) => [...known, ...lists.flat()]);
  }

  private split(phase: InstallPhase): { known: pulumi.Resource[]; pending: Promise<Resources>[] } {
    const step = this.steps.get(phase);
    if (!step) throw new Error(`install order: ${phase} is not a phase of this mode`);
    const viaProvider = THROUGH_KARMADA_PROVIDER.includes(phase);
    const known: pulumi.Resource[] = [];
    const pending: Promise<Resources>[] = [];
    for (const before of step.after) {
      if (viaProvider && before === "karmada-provider") continue;
      const record = this.record(before);
      if (record.known) known.push(...record.known);
      else pending.push(record.promise);
    }
    return { known, pending };
  }

  private record(phase: InstallPhase): PhaseRecord {
    let record = this.records.get(phase);
    if (!record) {
      let resolve!: PhaseRecord["resolve"];
      const promise = new Promise<Resources>((r) => (resolve = r));
      record = { promise, resolve, recorded: false };
      this.records.set(phase, record);
    }
    return record;
  }
}
