/**
 * The web console: estates, an estate's page (members, certificates, the dependency picture, settings),
 * a preview of a settings edit as the objects it changes grouped by component, apply with live progress,
 * and the operations' history. Everything through the typed client; the DOM is built from text nodes
 * only (no HTML from data). The token lives in this tab's sessionStorage.
 */
import {
  ConsoleApiError,
  ConsoleClient,
  EstateDetail,
  EstateSummary,
  OperationRecord,
  PreviewResult,
  ProgressEvent,
  SettingEdit,
} from "../client/index.js";

const TOKEN_KEY = "pulumi-karmada-console-token";

type Child = Node | string | undefined | false;

/** An element with attributes and children (strings become text nodes). */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | ((event: Event) => void)> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) element.setAttribute(name, "");
    else if (value !== false) element.setAttribute(name, value);
  }
  for (const child of children)
    if (child !== undefined && child !== false)
      element.append(typeof child === "string" ? document.createTextNode(child) : child);
  return element;
}

const SVG = "http://www.w3.org/2000/svg";
function s(tag: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

const view = () => document.getElementById("view")!;
const token = () => sessionStorage.getItem(TOKEN_KEY) ?? "";
const client = () => new ConsoleClient(location.origin, token());

/** Shows `nodes` as the page, focusing its heading (keyboard and screen-reader users land there). */
function show(...nodes: Child[]): void {
  view().replaceChildren(...nodes.filter((n): n is Node | string => n !== undefined && n !== false));
  view().querySelector<HTMLElement>("h2")?.setAttribute("tabindex", "-1");
  view().querySelector<HTMLElement>("h2")?.focus();
}

/** A problem answer as a block naming the settings at fault. */
function problemBlock(error: unknown): HTMLElement {
  if (error instanceof ConsoleApiError) {
    const { problem } = error;
    return h(
      "div",
      { class: "problem", role: "alert" },
      h("strong", {}, `${problem.title} (${problem.status})`),
      problem.fields?.length
        ? h(
            "ul",
            {},
            ...problem.fields.map((f) =>
              h(
                "li",
                {},
                h("code", {}, f.field),
                `: ${f.problem}`,
                f.allowed ? ` (allowed: ${f.allowed})` : "",
              ),
            ),
          )
        : h("p", { class: "mono" }, problem.detail),
    );
  }
  return h("div", { class: "problem", role: "alert" }, String((error as Error)?.message ?? error));
}

/** Sign-in form while no token works. */
function requireSignIn(message = ""): void {
  const form = document.getElementById("sign-in") as HTMLFormElement;
  form.hidden = false;
  document.getElementById("sign-out")!.hidden = true;
  document.getElementById("sign-in-error")!.textContent = message;
  view().replaceChildren();
  (document.getElementById("token") as HTMLInputElement).focus();
}

async function guarded(render: () => Promise<void>): Promise<void> {
  if (!token()) return requireSignIn();
  document.getElementById("sign-in")!.hidden = true;
  document.getElementById("sign-out")!.hidden = false;
  try {
    await render();
  } catch (error) {
    if (error instanceof ConsoleApiError && error.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      return requireSignIn("That token was not accepted.");
    }
    show(h("h2", {}, "Something went wrong"), problemBlock(error));
  }
}

const readyCount = (e: EstateSummary) =>
  `${e.members.filter((m) => m.ready === "True").length} of ${e.members.length} Ready`;
const days = (n: number) => (n === 1 ? "1 day" : `${n} days`);

async function estatesPage(): Promise<void> {
  const { estates } = await client().listEstates();
  show(
    h("h2", {}, "Estates"),
    h(
      "table",
      {},
      h("caption", { class: "muted" }, "One estate per stack of the program"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["Stack", "Deployed", "API endpoint", "Members", "Soonest certificate expiry", "Operation"].map(
            (t) => h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        ...estates.map((e) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, h("a", { href: `#/estate/${encodeURIComponent(e.stack)}` }, e.stack)),
            h("td", {}, e.deployed ? "yes" : "no"),
            h("td", { class: "mono" }, e.apiEndpoint ?? "—"),
            h("td", {}, e.deployed ? readyCount(e) : "—"),
            h(
              "td",
              {},
              e.certificates[0] ? `${e.certificates[0].name}: ${days(e.certificates[0].daysLeft)}` : "—",
            ),
            h(
              "td",
              {},
              e.runningOperation
                ? h("span", { class: "status-running" }, `${e.runningOperation.kind} running`)
                : "—",
            ),
          ),
        ),
      ),
    ),
  );
}

/** The dependency picture: components in columns by how deep their dependencies go, arrows to what they wait for. */
function graphPicture(graph: EstateDetail["graph"]): HTMLElement {
  const depth = new Map<string, number>();
  const depthOf = (urn: string, seen = new Set<string>()): number => {
    if (depth.has(urn)) return depth.get(urn)!;
    if (seen.has(urn)) return 0;
    seen.add(urn);
    const deps = graph.edges.filter((e) => e.from === urn).map((e) => depthOf(e.to, seen) + 1);
    const d = Math.max(0, ...deps);
    depth.set(urn, d);
    return d;
  };
  graph.nodes.forEach((n) => depthOf(n.urn));
  const columns = new Map<number, typeof graph.nodes>();
  for (const node of graph.nodes)
    columns.set(depth.get(node.urn)!, [...(columns.get(depth.get(node.urn)!) ?? []), node]);
  const [W, H, GX, GY] = [210, 46, 70, 24];
  const position = new Map<string, { x: number; y: number }>();
  for (const [column, nodes] of columns)
    nodes.forEach((node, row) =>
      position.set(node.urn, { x: 20 + column * (W + GX), y: 20 + row * (H + GY) }),
    );
  const width = 40 + (Math.max(0, ...columns.keys()) + 1) * (W + GX) - GX;
  const height = 40 + Math.max(1, ...[...columns.values()].map((c) => c.length)) * (H + GY) - GY;
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-labelledby": "graph-title",
  });
  svg.append(
    s("title", { id: "graph-title" }, "Dependency picture: each arrow points to what a component waits for"),
  );
  const defs = s("defs", {});
  const marker = s("marker", {
    id: "arrow",
    viewBox: "0 0 10 10",
    refX: 10,
    refY: 5,
    markerWidth: 8,
    markerHeight: 8,
    orient: "auto-start-reverse",
  });
  marker.append(s("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#57606a" }));
  defs.append(marker);
  svg.append(defs);
  for (const edge of graph.edges) {
    const from = position.get(edge.from);
    const to = position.get(edge.to);
    if (!from || !to) continue;
    svg.append(
      s("line", {
        x1: from.x,
        y1: from.y + H / 2,
        x2: to.x + W,
        y2: to.y + H / 2,
        stroke: "#57606a",
        "stroke-width": 1.5,
        "marker-end": "url(#arrow)",
      }),
    );
  }
  for (const node of graph.nodes) {
    const { x, y } = position.get(node.urn)!;
    svg.append(s("rect", { x, y, width: W, height: H, rx: 8, fill: "#ffffff", stroke: "#0550ae" }));
    svg.append(
      s(
        "text",
        { x: x + 10, y: y + 19, "font-size": 12, fill: "#57606a" },
        node.type.split(":").pop() ?? node.type,
      ),
    );
    svg.append(
      s("text", { x: x + 10, y: y + 36, "font-size": 14, "font-weight": 600, fill: "#1b1f24" }, node.name),
    );
  }
  const nameOf = (urn: string) => graph.nodes.find((n) => n.urn === urn)?.name ?? urn;
  return h(
    "div",
    { class: "graph" },
    svg as unknown as Node,
    h(
      "ul",
      { class: "muted" },
      ...graph.edges.map((e) => h("li", {}, `${nameOf(e.from)} waits for ${nameOf(e.to)}`)),
    ),
  );
}

/** The edits of the settings editor: each setting whose JSON text changed, as a whole value. */
function editsOf(detail: EstateDetail, form: HTMLFormElement): SettingEdit[] | string {
  const edits: SettingEdit[] = [];
  for (const setting of detail.settings.filter((x) => !x.secret)) {
    const area = form.elements.namedItem(setting.key) as HTMLTextAreaElement | null;
    if (!area) continue;
    let value: unknown;
    try {
      value = JSON.parse(area.value);
    } catch {
      return `${setting.key} is not valid JSON`;
    }
    if (JSON.stringify(value) !== JSON.stringify(setting.value)) edits.push({ key: setting.key, value });
  }
  return edits;
}

function previewBlock(result: PreviewResult): HTMLElement {
  const { summary } = result;
  const total = Object.values(summary.totals).reduce((a, b) => a + b, 0);
  return h(
    "section",
    { class: "card", "aria-labelledby": "preview-title" },
    h(
      "h3",
      { id: "preview-title" },
      total === 0 ? "Preview: no changes" : `Preview: ${total} object${total === 1 ? "" : "s"} to change`,
    ),
    ...summary.components.map((component) =>
      h(
        "div",
        {},
        h("h4", {}, component.label),
        h(
          "ul",
          { class: "changes" },
          ...component.changes.map((c) =>
            h(
              "li",
              {},
              h("span", { class: `kind kind-${c.kind}` }, c.kind),
              " ",
              h("span", { class: "mono" }, c.name),
              c.reasons.length ? h("span", { class: "muted" }, ` (${c.reasons.join(", ")})`) : "",
            ),
          ),
        ),
      ),
    ),
    h("p", { class: "muted" }, `${summary.unchanged} unchanged`),
  );
}

/** Follows an operation's events into `target`, with a progress bar; resolves with its final record. */
async function followOperation(id: string, target: HTMLElement): Promise<OperationRecord> {
  const bar = h("progress", { max: "1", value: "0", "aria-label": "Resources done" }) as HTMLProgressElement;
  const status = h("p", { role: "status" }, "running…");
  const list = h("ol", { class: "events", "aria-label": "Progress" });
  target.replaceChildren(status, bar, list);
  let started = 0;
  let ended = 0;
  const line = (event: ProgressEvent): string => {
    if (event.kind === "step")
      return `${event.op} ${event.resource?.name ?? ""}: ${event.status}${event.durationMs !== undefined ? ` (${(event.durationMs / 1000).toFixed(1)} s)` : ""}`;
    if (event.kind === "diagnostic") return `${event.severity}: ${event.message}`;
    if (event.kind === "summary")
      return `summary: ${Object.entries(event.changes ?? {})
        .map(([op, n]) => `${n} ${op}`)
        .join(", ")}`;
    return `operation ${event.status}${event.message ? `: ${event.message}` : ""}`;
  };
  for await (const event of client().events(id)) {
    if (event.kind === "step") {
      if (event.status === "started") started++;
      else ended++;
      bar.max = Math.max(1, started);
      bar.value = ended;
    }
    if (event.kind === "status") status.textContent = `operation ${event.status}`;
    status.className = event.kind === "status" ? `status-${event.status}` : status.className;
    // what changes is listed; resources left as they are only move the bar (an estate has hundreds)
    if (event.kind === "step" && (event.op === "same" || event.op === "read")) continue;
    list.append(h("li", { class: event.kind === "step" ? `status-${event.status}` : "" }, line(event)));
    list.scrollTop = list.scrollHeight;
  }
  return client().getOperation(id);
}

async function estatePage(stack: string): Promise<void> {
  const detail = await client().getEstate(stack);
  const { summary } = detail;
  const result = h("div", {});
  const progress = h("div", { "aria-live": "polite" });
  const editable = detail.settings.filter((x) => !x.secret);
  const form = h(
    "form",
    { "aria-labelledby": "settings-title" },
    h("h3", { id: "settings-title" }, "Settings"),
    h(
      "p",
      { class: "muted" },
      `Secret settings (${
        detail.settings
          .filter((x) => x.secret)
          .map((x) => x.key)
          .join(", ") || "none"
      }) are not shown or editable here.`,
    ),
    ...editable.flatMap((setting) => [
      h("label", { for: `setting-${setting.key}` }, setting.key),
      h(
        "textarea",
        { id: `setting-${setting.key}`, name: setting.key, spellcheck: "false", rows: "10" },
        JSON.stringify(setting.value, null, 2),
      ),
    ]),
  );
  let previewed: SettingEdit[] | undefined;
  const applyButton = h(
    "button",
    { type: "button", class: "primary", disabled: true },
    "Apply",
  ) as HTMLButtonElement;
  const previewButton = h("button", { type: "button" }, "Preview changes") as HTMLButtonElement;
  previewButton.addEventListener("click", async () => {
    const edits = editsOf(detail, form);
    if (typeof edits === "string") return result.replaceChildren(problemBlock(new Error(edits)));
    previewButton.disabled = true;
    applyButton.disabled = true;
    result.replaceChildren(h("p", { role: "status" }, "previewing…"));
    try {
      result.replaceChildren(previewBlock(await client().preview(stack, edits)));
      previewed = edits;
      applyButton.disabled = false;
    } catch (error) {
      result.replaceChildren(problemBlock(error));
    } finally {
      previewButton.disabled = false;
    }
  });
  applyButton.addEventListener("click", async () => {
    if (!previewed) return;
    applyButton.disabled = true;
    previewButton.disabled = true;
    try {
      const record = await client().startOperation(stack, { kind: "up", edits: previewed });
      const done = await followOperation(record.id, progress);
      progress.append(
        h(
          "p",
          { class: `status-${done.status}` },
          `up ${done.status}`,
          " — ",
          h("a", { href: `#/estate/${encodeURIComponent(stack)}` }, "reload the estate"),
        ),
      );
    } catch (error) {
      progress.replaceChildren(problemBlock(error));
    } finally {
      previewButton.disabled = false;
      previewed = undefined;
    }
  });
  form.append(h("p", {}, previewButton, " ", applyButton), result, progress);

  show(
    h("h2", {}, `Estate ${stack}`),
    h(
      "p",
      {},
      summary.deployed
        ? h("span", {}, "API endpoint ", h("code", {}, summary.apiEndpoint ?? "—"))
        : "Not deployed yet.",
      summary.lastUpdate
        ? h("span", { class: "muted" }, ` · last update ${new Date(summary.lastUpdate).toLocaleString()}`)
        : "",
    ),
    summary.runningOperation
      ? h(
          "p",
          { class: "status-running" },
          `${summary.runningOperation.kind} running (${summary.runningOperation.id})`,
        )
      : "",
    h("h3", {}, "Members"),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h("tr", {}, ...["Cluster", "Sync mode", "Ready", "Reason"].map((t) => h("th", { scope: "col" }, t))),
      ),
      h(
        "tbody",
        {},
        ...summary.members.map((m) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, m.name),
            h("td", {}, m.mode),
            h("td", { class: `status-${m.ready}` }, m.ready),
            h("td", { class: "muted" }, m.reason ?? ""),
          ),
        ),
      ),
    ),
    h("h3", {}, "Certificates"),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h("tr", {}, ...["Certificate", "Expires", "Days left"].map((t) => h("th", { scope: "col" }, t))),
      ),
      h(
        "tbody",
        {},
        ...summary.certificates.map((c) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, c.name),
            h("td", {}, new Date(c.notAfter).toLocaleDateString()),
            h("td", { class: c.daysLeft < 30 ? "soon" : "" }, String(c.daysLeft)),
          ),
        ),
      ),
    ),
    h("h3", {}, "Dependency picture"),
    graphPicture(detail.graph),
    form,
    h("h3", {}, "Operations"),
    operationsTable((await client().listOperations(stack)).operations),
  );
}

function operationsTable(operations: OperationRecord[]): HTMLElement {
  return h(
    "table",
    {},
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["Operation", "Stack", "Status", "By", "Started", "Ended", "Changes"].map((t) =>
          h("th", { scope: "col" }, t),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      ...operations.map((o) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, h("a", { href: `#/operation/${o.id}` }, o.kind)),
          h("td", {}, o.stack),
          h("td", { class: `status-${o.status}` }, o.status),
          h("td", {}, o.requestedBy),
          h("td", {}, new Date(o.startedAt).toLocaleString()),
          h("td", {}, o.finishedAt ? new Date(o.finishedAt).toLocaleString() : "—"),
          h(
            "td",
            { class: "mono" },
            Object.entries(o.changes ?? {})
              .map(([op, n]) => `${n} ${op}`)
              .join(", "),
          ),
        ),
      ),
    ),
  );
}

async function operationsPage(): Promise<void> {
  show(h("h2", {}, "Operations"), operationsTable((await client().listOperations()).operations));
}

async function operationPage(id: string): Promise<void> {
  const record = await client().getOperation(id);
  const target = h("div", {});
  show(
    h("h2", {}, `${record.kind} of ${record.stack}`),
    h(
      "p",
      { class: "muted" },
      `by ${record.requestedBy}, started ${new Date(record.startedAt).toLocaleString()}`,
    ),
    target,
  );
  const done = await followOperation(id, target);
  if (done.error) target.append(h("div", { class: "problem" }, done.error));
}

function route(): void {
  const [, page, arg] = location.hash.replace(/^#/, "").split("/");
  if (page === "estate" && arg) void guarded(() => estatePage(decodeURIComponent(arg)));
  else if (page === "operations") void guarded(operationsPage);
  else if (page === "operation" && arg) void guarded(() => operationPage(arg));
  else void guarded(estatesPage);
}

document.getElementById("sign-in")!.addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, (document.getElementById("token") as HTMLInputElement).value.trim());
  (document.getElementById("token") as HTMLInputElement).value = "";
  route();
});
document.getElementById("sign-out")!.addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  requireSignIn();
});
window.addEventListener("hashchange", route);
route();
