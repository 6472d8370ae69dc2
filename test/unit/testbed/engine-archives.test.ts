/**
 * scripts/testbed/build.sh installs the Pulumi engine only from archives that match SHA256SUMS: a tampered
 * or missing archive stops the install, naming the file, before anything is extracted. Runs build.sh for
 * real against throw-away archives (small stand-ins with their own SHA256SUMS) and a throw-away cache.
 */
import { createHash } from "crypto";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT } from "../../../devkit/testbed";
import { describeWithGo } from "../../support/upstream";

const BUILD = path.join(REPO_ROOT, "scripts/testbed/build.sh");

/** The archive names build.sh expects (CLI bundle, then each plugin), as scripts/testbed/lib.sh names them. */
function archiveNames(): string[] {
  const out = spawnSync(
    "bash",
    [
      "-c",
      '. "$1"; for p in cli "${TESTBED_PLUGINS[@]}"; do tb_engine_archive "$p"; done',
      "names",
      path.join(REPO_ROOT, "scripts/testbed/lib.sh"),
    ],
    { encoding: "utf8" },
  );
  expect(out.status).toBe(0);
  return out.stdout.split("\n").filter(Boolean);
}

// build.sh checks for go before anything else
describeWithGo("build.sh engine: the archive check", "scripts/testbed/build.sh, which requires Go", () => {
  let tmp: string;
  let names: string[];
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-engine-archives-"));
    names = archiveNames();
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A directory of stand-in archives listed in its SHA256SUMS; `change` then tampers with it. */
  function archives(label: string, change: (dir: string) => void): string {
    const dir = path.join(tmp, label);
    fs.mkdirSync(dir);
    const sums = names.map((name) => {
      const content = `stand-in for ${name}\n`;
      fs.writeFileSync(path.join(dir, name), content);
      return `${createHash("sha256").update(content).digest("hex")}  ${name}\n`;
    });
    fs.writeFileSync(path.join(dir, "SHA256SUMS"), sums.join(""));
    change(dir);
    return dir;
  }

  /** Runs `build.sh engine` with the archives in `engineDir` and a cache of its own. */
  function buildEngine(engineDir: string): { status: number | null; output: string } {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PULUMI_KARMADA_ENGINE_DIR: engineDir,
      PULUMI_KARMADA_CACHE: path.join(engineDir, "..", `${path.basename(engineDir)}-cache`),
    };
    delete env.TESTBED_DEADLINE_EPOCH;
    const r = spawnSync("bash", [BUILD, "engine"], { encoding: "utf8", env, timeout: 60_000 });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }

  it("accepts nothing when an archive's content does not match SHA256SUMS, naming the file", () => {
    const tampered = names[2]; // a plugin: the ones before it pass the check
    const dir = archives("tampered", (d) => fs.writeFileSync(path.join(d, tampered), "not the archive\n"));
    const r = buildEngine(dir);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain(`engine archive ${dir}/${tampered}: sha256 mismatch`);
    // nothing extracted or installed: the engine's bin dir is empty, no plugin home, no .done
    const testbed = path.join(`${dir}-cache`, "testbed");
    const engineDirs = fs.readdirSync(testbed).filter((d) => d.startsWith("engine-"));
    expect(engineDirs).toHaveLength(1);
    expect(fs.readdirSync(path.join(testbed, engineDirs[0]))).toEqual(["bin"]);
    expect(fs.readdirSync(path.join(testbed, engineDirs[0], "bin"))).toEqual([]);
    expect(fs.existsSync(path.join(testbed, "pulumi-home"))).toBe(false);
  });

  it("accepts nothing when an archive is missing, naming the file", () => {
    const missing = names[names.length - 1];
    const dir = archives("missing", (d) => fs.rmSync(path.join(d, missing)));
    const r = buildEngine(dir);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain(`engine archive ${dir}/${missing}: missing`);
  });
});
