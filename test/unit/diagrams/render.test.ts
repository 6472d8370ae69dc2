import { ConfigError } from "../../../lib/validation/errors";
import {
  byText,
  dotAttributes,
  dotEdge,
  dotQuote,
  edgeWidth,
  renderDot,
} from "../../../scripts/diagrams/dot";
import { graphvizVersion, renderSvg, svgRenderer } from "../../../scripts/diagrams/graphviz";
import { PREVIEW_NETWORK, relocateAddresses } from "../../../scripts/diagrams/preview";
import { parseRenderArgs } from "../../../scripts/diagrams/render";

describe("DOT text", () => {
  test("quoting escapes backslashes, quotes and newlines", () => {
    expect(dotQuote('a "b" \\ c\nd')).toBe('"a \\"b\\" \\\\ c\\nd"');
  });

  test("attributes keep their order and leave out unset ones", () => {
    expect(dotAttributes({ label: "x", style: undefined, penwidth: 1.5 })).toBe(
      ' [label="x", penwidth="1.5"]',
    );
    expect(dotEdge("a", "b")).toBe('"a" -> "b";');
  });

  test("edge width grows with the count, slowly", () => {
    const widths = [1, 2, 10, 100, 1000].map(edgeWidth);
    expect(widths[0]).toBe(1);
    expect([...widths].sort((a, b) => a - b)).toEqual(widths);
    expect(widths[4]).toBeLessThan(7);
  });

  test("a document: comment lines, the graph, shared defaults, then the body", () => {
    const text = renderDot({
      name: "g",
      comment: ["made by a test"],
      graph: { rankdir: "LR" },
      body: ['"a";'],
    });
    expect(text.split("\n")[0]).toBe("// made by a test");
    expect(text).toContain('digraph "g" {');
    expect(text).toContain('rankdir="LR";');
    expect(text.endsWith('  "a";\n}\n')).toBe(true);
  });

  test("sorting is by code unit, whatever the locale", () => {
    expect(["b", "B", "a", "_"].sort(byText)).toEqual(["B", "_", "a", "b"]);
  });
});

describe("Graphviz", () => {
  const dot = renderDot({ name: "g", comment: [], graph: {}, body: ['"a" -> "b" [label="2"];'] });

  // graphviz is a system package of scripts/setup.sh: without it this fails, naming the package
  test("renders the same SVG twice, naming the version that rendered it", () => {
    const first = renderSvg(dot);
    expect(renderSvg(dot)).toBe(first);
    expect(svgRenderer(first)).toBe(graphvizVersion());
  });

  test("a file without the Graphviz header comment names no renderer", () => {
    expect(svgRenderer("<svg/>")).toBeUndefined();
  });
});

describe("relocateAddresses", () => {
  test("moves every lab and loopback address into the preview's network, keeping the last octet and ports", () => {
    const settings = {
      hosts: [
        { address: "10.233.0.2", port: 22 },
        { address: "127.0.6.3", port: 2222 },
      ],
      apiServer: { externalEndpoint: "127.0.6.100:5443" },
      members: ["https://127.0.6.20:6443"],
      version: "v1.18.2",
    };
    expect(relocateAddresses(settings, PREVIEW_NETWORK)).toEqual({
      hosts: [
        { address: `${PREVIEW_NETWORK}.2`, port: 22 },
        { address: `${PREVIEW_NETWORK}.3`, port: 2222 },
      ],
      apiServer: { externalEndpoint: `${PREVIEW_NETWORK}.100:5443` },
      members: [`https://${PREVIEW_NETWORK}.20:6443`],
      version: "v1.18.2",
    });
  });

  test("any other IPv4 address is a ConfigError naming where it is", () => {
    const settings = { hosts: [{ address: "192.0.2.5" }] };
    expect(() => relocateAddresses(settings, PREVIEW_NETWORK, "karmada:etcd")).toThrow(ConfigError);
    expect(() => relocateAddresses(settings, PREVIEW_NETWORK, "karmada:etcd")).toThrow(
      /karmada:etcd\.hosts\[0\]\.address/,
    );
  });
});

describe("render.ts arguments", () => {
  test.each([
    [[], { check: false }],
    [["--check"], { check: true }],
    [
      ["--from-preview", "p.json", "--record-preview", "r.json"],
      { check: false, fromPreview: "p.json", recordPreview: "r.json" },
    ],
  ])("%j", (argv, expected) => expect(parseRenderArgs(argv)).toEqual(expected));

  test.each([
    [["--check", "--from-preview", "p.json"], /--check runs the real preview/],
    [["--from-preview"], /--from-preview needs a file name/],
    [["--record-preview", "--check"], /--record-preview needs a file name/],
    [["--bogus"], /unknown argument "--bogus"/],
  ])("%j is refused", (argv, message) => expect(() => parseRenderArgs(argv)).toThrow(message));
});
