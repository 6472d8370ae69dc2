import { REPO_ROOT } from "../../../devkit/testbed";
import {
  DRAWN_PACKAGES,
  UNDRAWN_PACKAGES,
  architectureDot,
  unplacedPackages,
} from "../../../scripts/diagrams/architecture";
import {
  SourceFile,
  areaOf,
  foundationAreas,
  importsOf,
  layerOf,
  moduleGraph,
  packageOf,
} from "../../../scripts/diagrams/modules";
import { readRepositorySources } from "../../../scripts/diagrams/sources";

describe("packageOf", () => {
  test.each([
    ["@pulumi/pulumi", "@pulumi/pulumi"],
    ["@pulumi/pulumi/automation", "@pulumi/pulumi"],
    ["yaml", "yaml"],
    ["cdk8s-plus-33/lib/x", "cdk8s-plus-33"],
    ["fs", undefined],
    ["node:fs/promises", undefined],
    ["path", undefined],
  ])("%s → %s", (specifier, expected) => expect(packageOf(specifier)).toBe(expected));
});

describe("importsOf", () => {
  const known = new Set(["lib/a/x.ts", "lib/a/index.ts", "lib/b.ts", "components/c.ts"]);
  const of = (path: string, text: string) => importsOf({ path, text }, known);

  test("resolves relative imports the way Node does: file.ts, then dir/index.ts", () => {
    const text = `import { x } from "./a/x";\nimport * as a from "./a";\nimport { b } from "./b";`;
    expect(of("lib/c.ts", text).files).toEqual(["lib/a/index.ts", "lib/a/x.ts", "lib/b.ts"]);
  });

  test("follows ../, and counts type-only imports and re-exports", () => {
    const text = `import type { T } from "../lib/b";\nexport * from "../lib/a/x";`;
    expect(of("components/c.ts", text).files).toEqual(["lib/a/x.ts", "lib/b.ts"]);
  });

  test("packages by name, Node built-ins and unresolvable relative paths (JSON, assets) left out", () => {
    const text = [
      `import * as pulumi from "@pulumi/pulumi";`,
      `import { LocalWorkspace } from "@pulumi/pulumi/automation";`,
      `import * as fs from "node:fs";`,
      `import * as path from "path";`,
      `import data from "./data.json";`,
      `import { parse } from "yaml";`,
    ].join("\n");
    expect(of("lib/c.ts", text)).toEqual({ files: [], packages: ["@pulumi/pulumi", "yaml"] });
  });
});

describe("layerOf and areaOf", () => {
  test.each([
    ["index.ts", "entry"],
    ["stacks/estate.ts", "stacks"],
    ["components/etcd/plan.ts", "components"],
    ["lib/pki/issue.ts", "lib"],
    ["lib/pki/issue.test.ts", undefined],
    ["scripts/synth.ts", undefined],
    ["test/unit/x.test.ts", undefined],
  ])("%s is in layer %s", (file, layer) => expect(layerOf(file)).toBe(layer));

  test("lib/ groups by its first subdirectory; an owned components/ folder joins its owner", () => {
    const owners = new Map([["components/etcd/", "components/etcdCluster.ts"]]);
    expect(areaOf("lib/controlplane/hosts/plan.ts", owners)).toBe("lib/controlplane/");
    expect(areaOf("components/etcd/plan.ts", owners)).toBe("components/etcdCluster.ts");
    expect(areaOf("components/shared/util.ts", owners)).toBe("components/shared/");
    expect(areaOf("stacks/config.ts", owners)).toBe("stacks/config.ts");
  });
});

describe("moduleGraph on a small tree", () => {
  const files: SourceFile[] = [
    { path: "index.ts", text: `export * from "./components/foo";` },
    {
      path: "components/foo.ts",
      text: `import "./foo/wire";\nimport "./shared/util";\nimport * as k from "@pulumi/kubernetes";`,
    },
    {
      path: "components/foo/wire.ts",
      text: `import "../../lib/a/x";\nimport "../../lib/a/y";\nimport "../../lib/v/check";`,
    },
    { path: "components/bar.ts", text: `import "./shared/util";\nimport "../lib/v/check";` },
    { path: "components/shared/util.ts", text: `import "../../lib/v/check";` },
    {
      path: "lib/a/x.ts",
      text: `import "./y";\nimport "../v/check";\nimport { Construct } from "constructs";`,
    },
    { path: "lib/a/y.ts", text: `import "../v/check";` },
    { path: "lib/v/check.ts", text: `` },
    { path: "lib/unused/z.ts", text: `` },
    { path: "scripts/tool.ts", text: `import "../lib/unused/z";\nimport "../components/foo";` },
    { path: "test/unit/z.test.ts", text: `import "../../lib/unused/z";` },
  ];
  const graph = moduleGraph(files);
  const area = (id: string) => graph.areas.find((a) => a.id === id)!;

  test("a folder only one component imports is merged into it; one imported by two stays an area", () => {
    expect(area("components/foo.ts").mergedFolders).toEqual(["components/foo/"]);
    expect(area("components/foo.ts").files).toEqual(["components/foo.ts", "components/foo/wire.ts"]);
    expect(area("components/shared/").files).toEqual(["components/shared/util.ts"]);
  });

  test("every mapped file is in exactly one area; scripts and tests are none", () => {
    const all = graph.areas.flatMap((a) => a.files).sort();
    expect(all).toEqual(
      files
        .map((f) => f.path)
        .filter((p) => layerOf(p) !== undefined)
        .sort(),
    );
  });

  test("edges count import statements between areas; imports inside an area are no edge", () => {
    const edge = (from: string, to: string) => graph.edges.find((e) => e.from === from && e.to === to)?.count;
    expect(edge("components/foo.ts", "lib/a/")).toBe(2); // wire.ts imports x and y
    expect(edge("components/foo.ts", "lib/v/")).toBe(1);
    expect(edge("lib/a/", "lib/v/")).toBe(2);
    expect(graph.edges.some((e) => e.from === e.to)).toBe(false);
    expect(graph.edges.some((e) => e.from.startsWith("scripts") || e.to.startsWith("scripts"))).toBe(false);
  });

  test("packages are counted per area", () => {
    expect(graph.packages).toEqual([
      { from: "components/foo.ts", package: "@pulumi/kubernetes", count: 1 },
      { from: "lib/a/", package: "constructs", count: 1 },
    ]);
  });

  test("an area only code outside the map imports says who does", () => {
    expect(area("lib/unused/").outsideImporters).toEqual(["scripts", "test"]);
    expect(area("lib/a/").outsideImporters).toEqual([]);
  });

  test("an area most others import is a foundation", () => {
    expect(foundationAreas(graph)).toEqual(["lib/v/"]);
  });

  test("the architecture diagram refuses a package it has not been told how to draw", () => {
    expect(unplacedPackages(graph)).toEqual(["constructs"]);
    expect(() => architectureDot(graph)).toThrow(/constructs .*DRAWN_PACKAGES nor UNDRAWN_PACKAGES/);
  });
});

describe("the repository's own import graph", () => {
  const sources = readRepositorySources(REPO_ROOT);
  const graph = moduleGraph(sources);

  test("every program file of index.ts, stacks/, components/ and lib/ is in exactly one area", () => {
    const mapped = sources.map((s) => s.path).filter((p) => layerOf(p) !== undefined);
    const placed = graph.areas.flatMap((a) => a.files);
    expect(placed.sort()).toEqual(mapped.sort());
    expect(new Set(placed).size).toBe(placed.length);
  });

  test("lib/ areas are its subdirectories; each component's helper folder is merged into it", () => {
    for (const a of graph.areas.filter((x) => x.layer === "lib"))
      expect(a.id).toMatch(/^lib\/[^/]+\/$|^lib\/[^/]+\.ts$/);
    const folders = new Set(
      sources
        .map((s) => s.path.split("/"))
        .filter((p) => p[0] === "components" && p.length > 2)
        .map((p) => `components/${p[1]}/`),
    );
    const merged = graph.areas.flatMap((a) => a.mergedFolders);
    const standalone = graph.areas
      .filter((a) => a.id.startsWith("components/") && a.id.endsWith("/"))
      .map((a) => a.id);
    expect([...merged, ...standalone].sort()).toEqual([...folders].sort());
  });

  test("every imported package is either drawn or deliberately left out", () => {
    expect(unplacedPackages(graph)).toEqual([]);
    const imported = new Set(graph.packages.map((p) => p.package));
    for (const name of Object.keys(UNDRAWN_PACKAGES)) expect(imported.has(name)).toBe(true);
    expect([...imported].some((p) => p in DRAWN_PACKAGES)).toBe(true);
  });

  test("the diagram has a node per area and draws no edge into a foundation area", () => {
    const dot = architectureDot(graph);
    for (const a of graph.areas) expect(dot).toContain(`"${a.id}" [`);
    for (const foundation of foundationAreas(graph)) expect(dot).not.toContain(`-> "${foundation}"`);
  });
});
