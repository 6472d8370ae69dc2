/**
 * One set of Pulumi versions everywhere: scripts/testbed/versions.env pins the engine and provider
 * plugins the test bed installs; package.json pins the npm packages to exactly those versions; the
 * installed npm packages ask the engine for those plugin versions; and the test bed has them installed.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { installedPlugins, requiredPluginVersion } from "../../../devkit/engine/tier";
import { REPO_ROOT, findBinary, testbedEnv } from "../../../devkit/testbed";
import { describeWithGo } from "../../support/upstream";
import { DEFAULT_KARMADA_VERSION, RELEASES } from "../../../lib/catalog";

/** The KEY=value lines of versions.env. */
const VERSIONS: Readonly<Record<string, string>> = Object.fromEntries(
  fs
    .readFileSync(path.join(REPO_ROOT, "scripts/testbed/versions.env"), "utf8")
    .split("\n")
    .map((line) => /^([A-Z_]+)=(\S+)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1], m[2]]),
);

/** npm package (under @pulumi/) → its versions.env key. */
const PINNED: [string, string][] = [
  ["pulumi", "PULUMI_VERSION"],
  ["kubernetes", "KUBERNETES_PROVIDER_VERSION"],
  ["tls", "TLS_VERSION"],
  ["random", "RANDOM_VERSION"],
  ["command", "COMMAND_VERSION"],
];
const PLUGINS = PINNED.filter(([name]) => name !== "pulumi");
const pinned = (key: string) => VERSIONS[key]?.replace(/^v/, "");
const HINT = "run scripts/testbed/build.sh engine";

describe("Pulumi versions", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));

  it.each(PINNED)("package.json pins @pulumi/%s to exactly versions.env's %s", (name, key) => {
    expect(pinned(key)).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies[`@pulumi/${name}`]).toBe(pinned(key));
  });

  it("the installed @pulumi/pulumi is that version", () => {
    expect(requiredPluginVersion("pulumi")).toBe(pinned("PULUMI_VERSION"));
  });

  it.each(PLUGINS)("the installed @pulumi/%s asks the engine for plugin version %s", (name, key) => {
    expect(requiredPluginVersion(name)).toBe(pinned(key));
  });

  // installed by scripts/testbed/build.sh, which needs Go
  describeWithGo(
    "the test bed's engine",
    "the engine scripts/testbed/build.sh installs (build.sh requires Go)",
    () => {
      const { env } = testbedEnv();
      const pulumi = () => {
        const found = findBinary("pulumi", env);
        if (!found) throw new Error(`the Pulumi engine is not installed in the test bed: ${HINT}`);
        return found;
      };

      let plugins: { name: string; version: string }[] | undefined;
      const installed = () => (plugins ??= installedPlugins(pulumi(), env));

      it("is the CLI of PULUMI_VERSION", () => {
        const version = execFileSync(pulumi(), ["version"], {
          encoding: "utf8",
          env: { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" },
        }).trim();
        if (version !== VERSIONS.PULUMI_VERSION)
          throw new Error(`the test bed's Pulumi CLI is ${version}, not ${VERSIONS.PULUMI_VERSION}: ${HINT}`);
      });

      it.each(PLUGINS)("has provider plugin %s at exactly versions.env's %s", (name, key) => {
        const versions = installed()
          .filter((p) => p.name === name)
          .map((p) => p.version);
        if (!versions.includes(pinned(key)!)) {
          throw new Error(
            `provider plugin ${name} ${pinned(key)} is not installed in the test bed (installed: ${versions.join(", ") || "none"}): ${HINT}`,
          );
        }
      });
    },
  );
});

/** The examples in other languages take the Pulumi SDKs from their registries at the engine's versions. */
describe("Pulumi SDK versions of the examples in other languages", () => {
  const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, "examples", file), "utf8");

  it("examples/python/requirements.txt pins pulumi and pulumi-kubernetes from PyPI", () => {
    const pins = Object.fromEntries(
      read("python/requirements.txt")
        .split("\n")
        .map((line) => /^([a-z-]+)==(\S+)$/.exec(line.trim()))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1], m[2]]),
    );
    expect(pins).toEqual({
      pulumi: pinned("PULUMI_VERSION"),
      "pulumi-kubernetes": pinned("KUBERNETES_PROVIDER_VERSION"),
    });
  });

  it("examples/go/go.mod requires the Go SDKs from the module proxy", () => {
    const goMod = read("go/go.mod");
    expect(goMod).toContain(`github.com/pulumi/pulumi/sdk/v3 v${pinned("PULUMI_VERSION")}`);
    expect(goMod).toContain(
      `github.com/pulumi/pulumi-kubernetes/sdk/v4 v${pinned("KUBERNETES_PROVIDER_VERSION")}`,
    );
  });

  it.each(["containerized", "members"])("examples/%s/package.json pins the npm SDKs", (example) => {
    const deps = JSON.parse(read(`${example}/package.json`)).dependencies;
    expect(deps["@pulumi/pulumi"]).toBe(pinned("PULUMI_VERSION"));
    expect(deps["@pulumi/kubernetes"]).toBe(pinned("KUBERNETES_PROVIDER_VERSION"));
  });
});

describe("Karmada and kube versions of the test bed follow the release catalog", () => {
  const oldest = RELEASES[RELEASES.length - 1];
  const newest = RELEASES.find((r) => r.version === DEFAULT_KARMADA_VERSION)!;

  it("builds the default release and the kube it pairs with", () => {
    expect([VERSIONS.KARMADA_VERSION, VERSIONS.KUBE_VERSION]).toEqual([
      newest.version,
      newest.kubernetesVersion,
    ]);
  });

  it("builds the oldest release and its kube too: the version-upgrade drill starts there", () => {
    expect([VERSIONS.KARMADA_PREVIOUS_VERSION, VERSIONS.KUBE_PREVIOUS_VERSION]).toEqual([
      oldest.version,
      oldest.kubernetesVersion,
    ]);
  });
});
