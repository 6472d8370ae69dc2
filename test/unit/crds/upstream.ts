import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * Directory of the upstream Karmada module (`github.com/karmada-io/karmada@<version>`) in the Go module
 * cache, or undefined where Go or the cached module is missing. Never downloads (GOPROXY=off): unit
 * tests contact nothing but loopback. Tests read upstream reference manifests from it at test time
 * (never copied into the repo).
 */
export function upstreamKarmadaDir(version = "v1.18.2"): string | undefined {
  try {
    const info = execFileSync(
      "go",
      ["mod", "download", "-json", `github.com/karmada-io/karmada@${version}`],
      {
        cwd: tmpdir(),
        encoding: "utf8",
        env: { ...process.env, GOPROXY: "off", GOFLAGS: "-mod=mod" },
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 60_000,
      },
    );
    const dir = (JSON.parse(info) as { Dir?: string }).Dir;
    return dir && existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Every document of an upstream YAML file, relative to the module directory. */
export function upstreamYaml(dir: string, file: string): Record<string, any>[] {
  return parseAllDocuments(readFileSync(join(dir, file), "utf8"))
    .map((doc) => doc.toJS())
    .filter((doc) => doc !== null && doc !== undefined);
}
