/**
 * The layers of docs/architecture.md, as the imports have them: the product (lib/, components/,
 * stacks/, provider/, policy/) imports none of devkit/, scripts/, console/, bench/ or test/; the devkit
 * imports neither scripts/ nor test/; scripts/ and bench/ do not import test/.
 */
import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..", "..", "..");

/** Every .ts file under `dir`, relative to the repository root. */
function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : tsFiles(rel);
    return entry.name.endsWith(".ts") ? [rel] : [];
  });
}

/** The top-level folder each relative import of `file` resolves to (statements only: `import … from`, `export … from`, `import(…)`, `require(…)`). */
function importedFolders(file: string): { spec: string; folder: string }[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const specs = [
    ...text.matchAll(/^(?:import|export)[^;]*?from "(\.[^"]+)"/gms),
    ...text.matchAll(/\b(?:import|require)\("(\.[^"]+)"\)/g),
  ].map((m) => m[1]);
  return specs.map((spec) => ({
    spec,
    folder: path.normalize(path.join(path.dirname(file), spec)).split(path.sep)[0],
  }));
}

/** Files of `layers` importing any of `forbidden`, as `file → import`. */
function crossings(layers: readonly string[], forbidden: readonly string[]): string[] {
  return layers.flatMap((layer) =>
    tsFiles(layer).flatMap((file) =>
      importedFolders(file)
        .filter((i) => forbidden.includes(i.folder))
        .map((i) => `${file} → ${i.spec}`),
    ),
  );
}

describe("layers (docs/architecture.md)", () => {
  test("the product imports nothing of the devkit, the scripts, the console, the benches or the tests", () => {
    expect(
      crossings(
        ["lib", "components", "stacks", "provider", "policy"],
        ["devkit", "scripts", "console", "bench", "test"],
      ),
    ).toEqual([]);
  });

  test("the devkit imports neither the scripts nor the tests", () => {
    expect(crossings(["devkit"], ["scripts", "test"])).toEqual([]);
  });

  test("the scripts and the benches do not import the tests", () => {
    expect(crossings(["scripts", "bench"], ["test"])).toEqual([]);
  });

  test("a crossing is seen (the check reads real imports)", () => {
    // test/ may import anything: its own imports of the devkit are found
    expect(crossings(["test/support"], ["devkit"]).length).toBeGreaterThan(0);
  });
});
