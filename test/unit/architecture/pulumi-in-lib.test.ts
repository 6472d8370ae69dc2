import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..", "..", "..");

/** Every .ts file under `dir`, relative to the repository root. */
function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(rel);
    return entry.name.endsWith(".ts") ? [rel] : [];
  });
}

/** The `@pulumi/*` packages a file imports (comments and strings in code do not count). */
const pulumiImports = (file: string): string[] =>
  [
    ...fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(/^import[^;]*?from "(@pulumi\/[a-z-]+)/gms),
  ].map((m) => m[1]);

/** The two columns of docs/architecture.md's table between its `pulumi-in-lib` markers. */
function documented(): { registers: string[]; outputsOnly: string[] } {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "architecture.md"), "utf8");
  const table = /<!-- pulumi-in-lib -->([\s\S]*?)<!-- \/pulumi-in-lib -->/.exec(doc)?.[1] ?? "";
  const row = table.trim().split("\n")[2] ?? "";
  const [registers, outputsOnly] = row
    .split("|")
    .slice(1, 3)
    .map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort());
  return { registers: registers ?? [], outputsOnly: outputsOnly ?? [] };
}

describe("Pulumi inside lib/ (docs/architecture.md)", () => {
  const importing = tsFiles("lib").filter((file) => pulumiImports(file).length > 0);

  test("the documented files are exactly those importing @pulumi/*", () => {
    const { registers, outputsOnly } = documented();
    expect([...registers, ...outputsOnly].sort()).toEqual(importing.sort());
  });

  test("the files listed as registering resources are those importing a resource package; the rest import only @pulumi/pulumi", () => {
    const registersResources = (file: string) => pulumiImports(file).some((pkg) => pkg !== "@pulumi/pulumi");
    expect(documented().registers).toEqual(importing.filter(registersResources).sort());
  });

  test("no manifest builder imports the file that applies objects", () => {
    const applying = tsFiles("lib/manifests").filter((file) =>
      /from "(\.\.\/)+kube\/apply"/.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(applying).toEqual([]);
  });
});
