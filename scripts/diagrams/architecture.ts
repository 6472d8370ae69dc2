/**
 * The architecture diagram: the import graph of stacks/ → components/ → lib/ (derived from the code, see
 * modules.ts) plus a small hand-written part — which npm packages are drawn, and what the resource
 * providers talk to (machines over SSH, the host cluster, karmada-apiserver, the member clusters).
 */
import { DotAttributes, byText, dotCluster, dotEdge, dotNode, edgeWidth, plural, renderDot } from "./dot";
import { Layer, ModuleArea, ModuleGraph, foundationAreas } from "./modules";

/** A package drawn as a node: the node it joins (cdk8s and its plus library share one) and its caption. */
interface DrawnPackage {
  readonly node: string;
  readonly label: string;
}

/** cdk8s and its plus library: one node. */
const CDK8S: DrawnPackage = { node: "pkg:cdk8s", label: "cdk8s + cdk8s-plus-33\nmanifests as code" };

/** The npm packages the diagram draws: the resource providers and the manifest renderer. */
export const DRAWN_PACKAGES: Readonly<Record<string, DrawnPackage>> = {
  "@pulumi/tls": {
    node: "pkg:tls",
    label: "@pulumi/tls\nkeys, CSRs, certificates\n(computed by the engine, no traffic)",
  },
  "@pulumi/command": { node: "pkg:command", label: "@pulumi/command\nremote.Command" },
  "@pulumi/kubernetes": {
    node: "pkg:kubernetes",
    label: "@pulumi/kubernetes\nproviders, one object per resource",
  },
  "@pulumi/random": { node: "pkg:random", label: "@pulumi/random\ntokens" },
  cdk8s: CDK8S,
  "cdk8s-plus-33": CDK8S,
};

/** Packages the code imports that are deliberately not drawn, and why. */
export const UNDRAWN_PACKAGES: Readonly<Record<string, string>> = {
  "@pulumi/pulumi": "the SDK every layer uses (Output, ComponentResource)",
  yaml: "renders kubeconfigs and manifests as YAML",
  "js-yaml": "parses YAML (CRD bundles, addon manifests): five times faster than yaml",
  tar: "reads the CRD bundle",
  typescript: "the package schema generator reads the Args types with the compiler API",
  prettier: "formats the generated package schema",
};

/** What the resource providers reach, hand-written: the code cannot tell which cluster a kubeconfig names. */
const TARGETS: readonly { id: string; label: string; from: string; edge: string }[] = [
  {
    id: "target:machines",
    label: "machines over SSH\netcd hosts, control-plane hosts\n(hosts mode)",
    from: "pkg:command",
    edge: "SSH",
  },
  {
    id: "target:host",
    label: "host cluster\n(in-cluster etcd, containerized\ncontrol plane, addons)",
    from: "pkg:kubernetes",
    edge: "kubeconfig",
  },
  {
    id: "target:karmada",
    label: "karmada-apiserver\n(namespaces, CRDs, webhooks,\nRBAC, Cluster objects)",
    from: "pkg:kubernetes",
    edge: "admin kubeconfig",
  },
  {
    id: "target:members",
    label: "member clusters\n(push: credentials; pull: karmada-agent)",
    from: "pkg:kubernetes",
    edge: "member kubeconfigs",
  },
];

/** The stack settings, hand-written: they enter through the stack program's entry point. */
const STACK_CONFIG = {
  id: "config:stack",
  label: "Pulumi.<env>.yaml\nkarmada:* settings",
  to: "stacks/index.ts",
};

const LAYER_CLUSTERS: readonly { layer: Layer; label: string; color: string }[] = [
  { layer: "stacks", label: "stacks/ — the config-driven program", color: "#eef5ff" },
  {
    layer: "components",
    label: "components/ — ComponentResources: defaults → validation → wiring",
    color: "#eefaf0",
  },
  { layer: "lib", label: "lib/ — building blocks (pure, except a few resource wrappers)", color: "#fff8e8" },
  {
    layer: "provider",
    label: "provider/ — the components for Python, Go, YAML, C#, Java (plugin + schema generator)",
    color: "#f5eefa",
  },
];

/** Imported packages that are neither drawn nor listed as undrawn: a new dependency needs a decision here. */
export function unplacedPackages(graph: ModuleGraph): string[] {
  const seen = new Set(graph.packages.map((p) => p.package));
  return [...seen].filter((p) => !(p in DRAWN_PACKAGES) && !(p in UNDRAWN_PACKAGES)).sort(byText);
}

/**
 * The caption of an area's node: its name, merged helper folders, file count, and a note when its
 * incoming edges are not drawn (a foundation) or when only code outside the map imports it.
 */
function areaLabel(area: ModuleArea, importers: number, foundation: boolean): string {
  const name = area.id.slice(area.id.indexOf("/") + 1) || area.id;
  const lines = [area.layer === "entry" ? `${area.id} (package entry)` : name];
  for (const folder of area.mergedFolders) lines.push(`+ ${folder.slice("components/".length)}`);
  lines.push(plural(area.files.length, "file"));
  if (foundation) lines.push(`imported by ${importers} areas (edges not drawn)`);
  if (importers === 0 && area.outsideImporters.length > 0)
    lines.push(`used by ${area.outsideImporters.map((dir) => `${dir}/`).join(", ")}`);
  return lines.join("\n");
}

/** The drawn packages' nodes (one per node id) and the edges from areas to them (import counts added up). */
function packageParts(graph: ModuleGraph): {
  drawnNodes: Set<string>;
  packageNodes: string[];
  packageEdges: string[];
} {
  const nodes = new Map<string, string>();
  const edges = new Map<string, number>();
  for (const p of graph.packages) {
    const drawn = DRAWN_PACKAGES[p.package];
    if (!drawn) continue;
    nodes.set(drawn.node, drawn.label);
    const key = `${p.from}\n${drawn.node}`;
    edges.set(key, (edges.get(key) ?? 0) + p.count);
  }
  const look: DotAttributes = { shape: "component", style: "filled", fillcolor: "#f0f0f0" };
  return {
    drawnNodes: new Set(nodes.keys()),
    packageNodes: [...nodes]
      .sort(([a], [b]) => byText(a, b))
      .map(([id, label]) => dotNode(id, { ...look, label })),
    packageEdges: [...edges]
      .sort(([a], [b]) => byText(a, b))
      .map(([key, count]) => {
        const [from, to] = key.split("\n");
        return dotEdge(from, to, { color: "#7a8fb8", style: "dashed", penwidth: edgeWidth(count) });
      }),
  };
}

/** The DOT source of the architecture diagram of `graph`. */
export function architectureDot(graph: ModuleGraph): string {
  const unplaced = unplacedPackages(graph);
  if (unplaced.length > 0) {
    throw new Error(
      `packages ${unplaced.join(", ")} are imported but neither in DRAWN_PACKAGES nor UNDRAWN_PACKAGES ` +
        "(scripts/diagrams/architecture.ts): add each to one of them",
    );
  }
  const ids = new Set(graph.areas.map((a) => a.id));
  if (!ids.has(STACK_CONFIG.to)) throw new Error(`${STACK_CONFIG.to} (the stack program's entry) is missing`);
  const foundations = new Set(foundationAreas(graph));
  const importers = (id: string) => new Set(graph.edges.filter((e) => e.to === id).map((e) => e.from)).size;
  const node = (area: ModuleArea) =>
    dotNode(area.id, {
      label: areaLabel(area, importers(area.id), foundations.has(area.id)),
      tooltip: area.files.join("\n"),
      style: foundations.has(area.id) ? "rounded,dashed" : undefined,
    });
  const clusters = LAYER_CLUSTERS.flatMap(({ layer, label, color }) =>
    dotCluster(
      layer,
      { label, style: "filled", fillcolor: color, color: "#999999" },
      graph.areas.filter((a) => a.layer === layer).map(node),
    ),
  );
  const codeEdges = graph.edges
    .filter((e) => !foundations.has(e.to))
    .map((e) =>
      dotEdge(e.from, e.to, {
        penwidth: edgeWidth(e.count),
        tooltip: `${e.from} → ${e.to}: ${plural(e.count, "import")}`,
      }),
    );
  const { drawnNodes, packageNodes, packageEdges } = packageParts(graph);
  const targets = TARGETS.filter((t) => drawnNodes.has(t.from));
  const body = [
    ...graph.areas.filter((a) => a.layer === "entry").map(node),
    dotNode(STACK_CONFIG.id, { label: STACK_CONFIG.label, shape: "note" }),
    ...clusters,
    ...dotCluster(
      "packages",
      { label: "npm packages (resource providers run as engine plugins)", style: "dashed", color: "#999999" },
      packageNodes,
    ),
    ...dotCluster(
      "targets",
      { label: "what the providers talk to", style: "dashed", color: "#999999" },
      targets.map((t) => dotNode(t.id, { label: t.label, shape: "box3d" })),
    ),
    dotEdge(STACK_CONFIG.id, STACK_CONFIG.to, { label: "pulumi up -s <env>", style: "dashed" }),
    ...codeEdges,
    ...packageEdges,
    ...targets.map((t) => dotEdge(t.from, t.id, { label: t.edge, color: "#7a8fb8" })),
  ];
  return renderDot({
    name: "architecture",
    comment: [
      "Generated by scripts/diagrams/render.ts (npm run diagrams) from the imports of index.ts, stacks/,",
      "components/, lib/ and provider/; do not edit. See docs/diagrams.md.",
    ],
    graph: {
      label:
        "pulumi-karmada: who imports whom\n" +
        "A → B: A imports B (width: number of import statements); dashed blue: uses the npm package; " +
        "3D boxes: what the deployed resources reach",
      rankdir: "TB",
      nodesep: 0.25,
      ranksep: 0.6,
    },
    body,
  });
}
