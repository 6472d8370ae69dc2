/**
 * The install order as code (lib/controlplane/installOrder.ts) and its wiring (components/controlplane/
 * installGraph.ts): each mode's list is sound, docs/architecture.md shows exactly it, and the graph hands
 * each phase the resources of the phases it comes after — known, promised or registered later.
 */
import * as fs from "fs";
import * as path from "path";
import type * as pulumi from "@pulumi/pulumi";
import {
  CONTAINERIZED_INSTALL_ORDER,
  HOSTS_INSTALL_ORDER,
  InstallStep,
  installOrderProblems,
  renderInstallOrder,
} from "../../../lib/controlplane/installOrder";
import { InstallGraph } from "../../../components/controlplane/installGraph";

const ARCHITECTURE = path.join(__dirname, "../../../docs/architecture.md");

/** A stand-in resource: the graph only passes resources along. */
const resource = (name: string) => ({ name }) as unknown as pulumi.Resource;
const names = (list: readonly unknown[]) => list.map((r) => (r as { name: string }).name).sort();

describe("install orders", () => {
  test.each([
    ["containerized", CONTAINERIZED_INSTALL_ORDER],
    ["hosts", HOSTS_INSTALL_ORDER],
  ])("%s: every phase once, each after phases listed before it", (_mode, order) => {
    expect(installOrderProblems(order)).toEqual([]);
  });

  test("a phase listed twice or waiting for a later one is named", () => {
    const order: InstallStep[] = [
      { phase: "secrets", after: ["etcd"], installs: "" },
      { phase: "etcd", after: [], installs: "" },
      { phase: "etcd", after: [], installs: "" },
    ];
    expect(installOrderProblems(order)).toEqual([
      "secrets waits for etcd, which is not listed before it",
      "etcd is listed twice",
    ]);
  });

  test("both modes end with the controllers, after every phase inside Karmada and the aggregated apiserver", () => {
    for (const order of [CONTAINERIZED_INSTALL_ORDER, HOSTS_INSTALL_ORDER]) {
      const last = order[order.length - 1];
      expect(last.phase).toBe("controllers");
      expect([...last.after].sort()).toEqual(
        [
          "aggregated-apiserver",
          "apiservices",
          "bootstrap",
          "crds",
          "karmada-namespaces",
          "rbac",
          "webhook-configurations",
        ].sort(),
      );
    }
  });

  test.each([
    ["Containerized", CONTAINERIZED_INSTALL_ORDER],
    ["Hosts", HOSTS_INSTALL_ORDER],
  ])("docs/architecture.md shows the %s order exactly as the code has it", (mode, order) => {
    const doc = fs.readFileSync(ARCHITECTURE, "utf8");
    const block = new RegExp(
      `${mode} \\(lib/controlplane/installOrder\\.ts\\):\\n\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\``,
    );
    const shown = block.exec(doc);
    expect(shown).not.toBeNull();
    expect(shown![1]).toBe(renderInstallOrder(order));
  });
});

describe("InstallGraph", () => {
  const ORDER: InstallStep[] = [
    { phase: "etcd", after: [], installs: "" },
    { phase: "secrets", after: [], installs: "" },
    { phase: "karmada-apiserver", after: ["secrets", "etcd"], installs: "" },
    { phase: "karmada-provider", after: ["karmada-apiserver"], installs: "" },
    { phase: "karmada-namespaces", after: ["karmada-provider"], installs: "" },
    { phase: "crds", after: ["karmada-namespaces"], installs: "" },
    { phase: "controllers", after: ["karmada-apiserver", "crds"], installs: "" },
  ];

  test("a phase's dependsOn is the resources of the phases it comes after, as a plain list when known", () => {
    const graph = new InstallGraph(ORDER);
    graph.done("etcd", [resource("etcd")]);
    graph.done("secrets", [resource("s1"), resource("s2")]);
    const dependsOn = graph.dependsOn("karmada-apiserver");
    expect(names(dependsOn)).toEqual(["etcd", "s1", "s2"]);
  });

  test("the phases that go through the Karmada provider do not list it: they use it", () => {
    const graph = new InstallGraph(ORDER);
    graph.done("karmada-provider", [resource("provider")]);
    expect(graph.dependsOn("karmada-namespaces")).toEqual([]);
    // the provider's own phase waits for what it comes after, by edges
    graph.done("etcd", []);
    graph.done("secrets", []);
    graph.done("karmada-apiserver", [resource("apiserver")]);
    expect(names(graph.dependsOn("karmada-provider"))).toEqual(["apiserver"]);
  });

  test("a phase recorded later (or promised) is one promised entry that resolves to its resources", async () => {
    const graph = new InstallGraph(ORDER);
    graph.done("karmada-apiserver", [resource("apiserver")]);
    // wired before the CRDs are even promised, as hosts' commands are before the Karmada side
    const dependsOn = graph.dependsOn("controllers");
    const before = graph.awaitedBefore("controllers");
    expect(dependsOn).toHaveLength(2);
    expect(names([dependsOn[0]])).toEqual(["apiserver"]);
    let resolveCrds!: (r: pulumi.Resource[]) => void;
    graph.done("crds", new Promise((r) => (resolveCrds = r)));
    resolveCrds([resource("crd-a"), resource("crd-b")]);
    expect(names(await (dependsOn[1] as unknown as Promise<pulumi.Resource[]>))).toEqual(["crd-a", "crd-b"]);
    expect(names(await before)).toEqual(["apiserver", "crd-a", "crd-b"]);
    // once resolved, the phase is known: later wiring gets a plain list
    expect(names(graph.dependsOn("controllers"))).toEqual(["apiserver", "crd-a", "crd-b"]);
  });

  test("a promised phase that fails (a CRD bundle that did not load) fails those waiting for it, nothing else", async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      const graph = new InstallGraph(ORDER);
      graph.done("karmada-apiserver", []);
      const failed = Promise.reject(new Error("crds: download failed"));
      failed.catch(() => undefined); // its own consumer (the CRDs' registration) handles it
      graph.done("crds", failed);
      await expect(graph.awaitedBefore("controllers")).rejects.toThrow("crds: download failed");
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", listener);
    }
  });

  test("mistakes in wiring are errors naming the phase", () => {
    const graph = new InstallGraph(ORDER);
    expect(() => graph.known("karmada-apiserver")).toThrow(
      "install order: karmada-apiserver is needed before it is recorded",
    );
    expect(() => graph.dependsOn("rbac")).toThrow("install order: rbac is not a phase of this mode");
    graph.done("etcd", []);
    expect(() => graph.done("etcd", [])).toThrow("install order: etcd recorded twice");
    expect(() => graph.assertComplete()).toThrow(
      "install order: never recorded: secrets, karmada-apiserver, karmada-provider, karmada-namespaces, crds, controllers",
    );
  });

  test("an unsound order is refused when the graph is made", () => {
    expect(() => new InstallGraph([{ phase: "crds", after: ["karmada-namespaces"], installs: "" }])).toThrow(
      "install order: crds waits for karmada-namespaces, which is not listed before it",
    );
  });
});
