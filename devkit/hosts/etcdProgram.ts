/**
 * The pieces of an etcd e2e estate around the program itself: the Pulumi project directory the CLI
 * runs, the etcd binaries placed on the test hosts, and per-command timings of an engine run.
 */
import { EngineEvent } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../testbed";
import { EtcdBinaries } from "./etcdBinaries";
import { TestBed } from "./testbed";

/** Where the etcd binaries sit inside every host root (the program's artifact `path` source). */
export const HOST_ETCD_BIN = "/opt/etcd-bin";

/**
 * A Pulumi project directory for the program, as a user's would be: Pulumi.yaml (nodejs runtime, `main`
 * the program) and links to the program directory and to what it runs with. Stack files the CLI writes
 * land here, not in the repository; Node resolves the links, so imports reach the repository's code.
 * With `compiledProgram` (the program compiled to JavaScript, e.g. by bench/support/compiledPrograms.ts)
 * the project runs that instead of the TypeScript source.
 */
export function etcdProgramProject(dir: string, compiledProgram?: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const yaml = [
    "name: pulumi-karmada-etcd-e2e",
    "runtime:",
    "  name: nodejs",
    "  options:",
    `    typescript: ${compiledProgram ? "false" : "true"}`,
    `main: program/${compiledProgram ? path.basename(compiledProgram) : "index.ts"}`,
    "",
  ];
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yaml.join("\n"));
  const links: Record<string, string> = {
    program: compiledProgram
      ? path.dirname(compiledProgram)
      : path.join(REPO_ROOT, "devkit", "programs", "etcd-hosts"),
    node_modules: path.join(REPO_ROOT, "node_modules"),
    "package.json": path.join(REPO_ROOT, "package.json"),
    "tsconfig.json": path.join(REPO_ROOT, "tsconfig.json"),
  };
  for (const [name, target] of Object.entries(links)) {
    fs.rmSync(path.join(dir, name), { force: true });
    fs.symlinkSync(target, path.join(dir, name));
  }
  return dir;
}

/** Copies the etcd binaries into `<root>/opt/etcd-bin` of every host. */
export function placeEtcdBinaries(bed: TestBed, etcd: EtcdBinaries): void {
  for (const host of bed.hosts) {
    const dir = path.join(host.root, HOST_ETCD_BIN);
    fs.mkdirSync(dir, { recursive: true });
    for (const bin of fs.readdirSync(etcd.dir)) {
      fs.copyFileSync(path.join(etcd.dir, bin), path.join(dir, bin));
      fs.chmodSync(path.join(dir, bin), 0o755);
    }
  }
}

/** Seconds each remote command took in one engine run (from its step's start to its outputs). */
export function commandTimer(): { onEvent: (e: EngineEvent) => void; summary: () => string } {
  const started = new Map<string, number>();
  const took: [string, number][] = [];
  const name = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);
  return {
    onEvent: (e) => {
      const pre = e.resourcePreEvent?.metadata;
      if (pre?.type === "command:remote:Command" && pre.op !== "same") started.set(pre.urn, e.timestamp);
      const done = e.resOutputsEvent?.metadata;
      if (done && started.has(done.urn)) took.push([name(done.urn), e.timestamp - started.get(done.urn)!]);
    },
    summary: () => took.map(([n, s]) => `${n} ${s}`).join(", ") || "none",
  };
}
