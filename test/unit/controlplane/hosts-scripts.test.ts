/**
 * The generated host scripts, run for real with bash against a host root in a temporary directory (no
 * SSH needed: every path is rooted): files and modes, version checks, port checks, and a component run
 * by the supervisor with restart-only-on-change and health checks. The components are stand-ins (no
 * test-bed binaries); the scripts use only what they use on a host (bash, coreutils, curl, ss).
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import {
  CONTROL_PLANE_REMOVE_GRACE_SECONDS,
  CONTROL_PLANE_STOP_GRACE_SECONDS,
  componentStopGraceSeconds,
  ControlPlaneHostsConfig,
  commandIds,
  componentBundleFiles,
  frameBundle,
  installScript,
  pkiScript,
  planControlPlaneHosts,
  preflightScript,
  publicFilesFingerprint,
  rollingOrder,
  readyScript,
  serviceRemoveScript,
  serviceScript,
} from "../../../lib/controlplane/hosts";
import { ControlPlaneComponent } from "../../../lib/controlplane/flags-ports";
import { killScriptProcesses } from "../../../devkit/hosts/testbed";
import { SSH_KEY, hostsConfig, resolveBoth } from "./hostsFixtures";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-cp-scripts-"));
const root = path.join(tmp, "root");
const ADDRESS = "127.0.7.2";
afterAll(() => {
  killScriptProcesses(root);
  fs.rmSync(tmp, { recursive: true, force: true });
});

function bash(script: string, stdin = ""): { code: number; stdout: string; stderr: string } {
  const r = spawnSync("bash", ["-c", script], { input: stdin, encoding: "utf8", timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function setup(over: Partial<ControlPlaneHostsConfig> = {}, extraArgs: Record<string, string> = {}) {
  return resolveBoth(
    {
      apiServer: { externalEndpoint: "127.0.7.100:5443" },
      components: { scheduler: { extraArgs }, descheduler: { enabled: true } },
    },
    hostsConfig({
      machines: [{ name: "cp1", address: ADDRESS, privateKey: SSH_KEY, root }],
      apiServiceHosts: { aggregatedApiserver: "127.0.7.100" },
      binaries: { path: "/opt/bin" },
      healthTimeoutSeconds: 5,
      ...over,
    }),
  );
}

/** Stand-ins for the Karmada binaries: report v1.18.2; the scheduler serves /healthz, the descheduler dies. */
function installFakeBinaries(): void {
  const dir = path.join(root, "opt/bin");
  fs.mkdirSync(dir, { recursive: true });
  // a Node.js script (the one running this test): the suite needs nothing beyond bash and node
  const scheduler = `#!${process.execPath}
const args = process.argv.slice(2);
if (args[0] === "version") {
  console.log('karmada-scheduler version: version.Info{GitVersion:"v1.18.2", GitCommit:"unknown"}');
  process.exit(0);
}
const addr = args.find((a) => a.startsWith("--health-probe-bind-address=")).split("=")[1];
const colon = addr.lastIndexOf(":");
require("http")
  .createServer((req, res) => {
    res.writeHead(req.url === "/healthz" ? 200 : 404);
    res.end("ok");
  })
  .listen(Number(addr.slice(colon + 1)), addr.slice(0, colon));
`;
  fs.writeFileSync(path.join(dir, "karmada-scheduler"), scheduler, { mode: 0o755 });
  fs.writeFileSync(
    path.join(dir, "karmada-descheduler"),
    `#!/usr/bin/env bash\nif [ "$1" = version ]; then echo 'version.Info{GitVersion:"v1.18.2"}'; exit 0; fi\necho "descheduler: cannot load kubeconfig" >&2\nexit 1\n`,
    { mode: 0o755 },
  );
}

/** A bundle of made-up PEMs for a component (content only matters to the fingerprint). */
function fakeFiles(component: ControlPlaneComponent, tag: string): Record<string, string> {
  return Object.fromEntries(
    componentBundleFiles(component).map((f) => [
      f,
      `-----BEGIN ${f.endsWith(".key") ? "SECRET" : "CERTIFICATE"}-----\n${tag}-${f}\n-----END-----`,
    ]),
  );
}

const childPid = (component: string) =>
  Number(fs.readFileSync(path.join(root, `run/pulumi-karmada/pk-${component}/child.pid`), "utf8").trim());
const mode = (p: string) => (fs.statSync(path.join(root, p)).mode & 0o777).toString(8);

// shellcheck of these scripts: test/e2e/controlplane-scripts-shellcheck.test.ts
describe("every generated script", () => {
  const variants = [
    setup(),
    setup({
      serviceManager: "systemd",
      machines: [{ name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY }],
      apiServiceHosts: {},
    }),
    resolveBoth(),
  ];
  const scripts = variants.flatMap(({ cp, hs }) =>
    planControlPlaneHosts(cp, hs, () => "0".repeat(64)).flatMap((c) => [
      { label: `${hs.serviceManager} ${c.id}`, script: c.create },
      ...(c.delete ? [{ label: `${hs.serviceManager} ${c.id} (delete)`, script: c.delete }] : []),
    ]),
  );

  test("runs strict, never carries the SSH key or a private key", () => {
    for (const { label, script } of scripts) {
      expect({ label, strict: script.includes("\nset -euo pipefail\n") }).toEqual({ label, strict: true });
      expect(script).not.toContain(SSH_KEY);
      expect(script).not.toMatch(/PRIVATE KEY|SECRET-----/);
    }
  });
});

describe("a machine listed instead of a lost one", () => {
  test("takes over the lost machine's commands (aliased ids), and only its own", () => {
    const { cp, hs } = resolveBoth(
      undefined,
      hostsConfig({
        machines: [
          { name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY },
          { name: "cp3", address: "10.0.0.7", privateKey: SSH_KEY, replaces: "cp2" },
        ],
      }),
    );
    const plan = planControlPlaneHosts(cp, hs, () => "0".repeat(64));
    const moved = plan.filter((c) => c.replacesId !== undefined);
    expect(moved.length).toBe(plan.filter((c) => c.host === "cp3").length);
    for (const c of moved) expect(c.replacesId).toBe(c.id.replace(/^cp3-/, "cp2-"));
    expect(plan.filter((c) => c.host === "cp1" && c.replacesId !== undefined)).toEqual([]);
  });

  test("starts first: a machine that kept serving restarts only once the replacement is healthy", () => {
    const machines = (list: { name: string; replaces?: string }[]) =>
      resolveBoth(
        undefined,
        hostsConfig({
          machines: list.map((m, i) => ({ ...m, address: `10.0.0.${5 + i}`, privateKey: SSH_KEY })),
        }),
      );
    // listed after the machines that kept serving, and in the middle: the order of `machines` does not matter
    for (const list of [
      [{ name: "cp1" }, { name: "cp4" }, { name: "cp3", replaces: "cp2" }],
      [{ name: "cp1" }, { name: "cp3", replaces: "cp2" }, { name: "cp4" }],
    ]) {
      const { cp, hs } = machines(list);
      expect(rollingOrder(hs.machines).map((m) => m.name)).toEqual(["cp3", "cp1", "cp4"]);
      const plan = new Map(planControlPlaneHosts(cp, hs, () => "0".repeat(64)).map((c) => [c.id, c]));
      for (const component of hs.components) {
        expect(plan.get(commandIds.service("cp3", component))!.dependsOn).not.toContain(
          commandIds.service("cp1", component),
        );
        // its ready command: a first start there does not wait for health itself
        expect(plan.get(commandIds.service("cp1", component))!.dependsOn).toContain(
          commandIds.ready("cp3", component),
        );
        expect(plan.get(commandIds.service("cp4", component))!.dependsOn).toContain(
          commandIds.service("cp1", component),
        );
      }
    }
    // no replacement: `machines` order, as listed
    const { hs } = machines([{ name: "b" }, { name: "a" }]);
    expect(rollingOrder(hs.machines).map((m) => m.name)).toEqual(["b", "a"]);
  });
});

describe("scripts run against a host root", () => {
  beforeAll(installFakeBinaries);

  test("pki: writes files with their modes, keeps unchanged ones, drops stale ones, rejects a short bundle", () => {
    const { hs } = setup();
    const host = hs.machines[0];
    const script = pkiScript(hs, host, "karmada-apiserver");
    const first = bash(script, frameBundle("karmada-apiserver", fakeFiles("karmada-apiserver", "a")));
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("11 file(s) of karmada-apiserver updated");
    expect([mode("etc/karmada/karmada-apiserver"), mode("etc/karmada/karmada-apiserver/pki")]).toEqual([
      "700",
      "700",
    ]);
    expect([
      mode("etc/karmada/karmada-apiserver/pki/ca.crt"),
      mode("etc/karmada/karmada-apiserver/pki/sa.key"),
    ]).toEqual(["644", "600"]);
    expect(fs.readFileSync(path.join(root, "etc/karmada/karmada-apiserver/pki/apiserver.key"), "utf8")).toBe(
      "-----BEGIN SECRET-----\na-apiserver.key\n-----END-----\n",
    );
    fs.writeFileSync(path.join(root, "etc/karmada/karmada-apiserver/pki/old.crt"), "stale");
    const again = bash(script, frameBundle("karmada-apiserver", fakeFiles("karmada-apiserver", "a")));
    expect(again.stdout).toContain("1 file(s) of karmada-apiserver updated");
    expect(fs.existsSync(path.join(root, "etc/karmada/karmada-apiserver/pki/old.crt"))).toBe(false);
    const short = bash(
      script,
      frameBundle("karmada-apiserver", fakeFiles("karmada-apiserver", "a")).split(
        "--- pulumi-karmada file: sa.key",
      )[0],
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(
      "pulumi-karmada: cp1: read-bundle: certificate bundle on stdin lacks sa.key",
    );
  });

  test("pki: every component's keys and kubeconfig 0600 in 0700 dirs, owned by the service user, restored on a re-run", () => {
    const { hs } = setup();
    const host = hs.machines[0];
    // the supervisor starts each service as the user running its scripts: this process's user here
    const uid = process.getuid!();
    const stat = (p: string) => {
      const st = fs.statSync(path.join(root, p));
      return { path: p, mode: (st.mode & 0o777).toString(8), uid: st.uid };
    };
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
    const isKey = (p: string) => p.endsWith(".key") || p.endsWith("/karmada.config");
    for (const component of hs.components) {
      const dir = `etc/karmada/${component}`;
      const bundle = frameBundle(component, fakeFiles(component, "m"));
      expect(bash(pkiScript(hs, host, component), bundle)).toMatchObject({ code: 0, stderr: "" });
      const files = walk(dir);
      const keys = files.filter(isKey);
      expect({ component, keys: keys.length > 0 }).toEqual({ component, keys: true });
      for (const d of [dir, `${dir}/pki`, `${dir}/serving`])
        expect(stat(d)).toEqual({ path: d, mode: "700", uid });
      for (const f of files) expect(stat(f)).toEqual({ path: f, mode: isKey(f) ? "600" : "644", uid });
      // loosened on the host: the next run restores modes and owner without rewriting anything
      const key = keys[0];
      fs.chmodSync(path.join(root, key), 0o644);
      fs.chmodSync(path.join(root, `${dir}/pki`), 0o755);
      if (uid === 0) fs.chownSync(path.join(root, key), 65534, 65534);
      const again = bash(pkiScript(hs, host, component), bundle);
      expect(again.stdout).toContain(`0 file(s) of ${component} updated`);
      expect([stat(key), stat(`${dir}/pki`)]).toEqual([
        { path: key, mode: "600", uid },
        { path: `${dir}/pki`, mode: "700", uid },
      ]);
    }
  });

  test("install: copies the binary from the host path and checks the version it reports", () => {
    const { hs } = setup();
    const r = bash(installScript(hs, hs.machines[0], "karmada-scheduler"));
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`karmada-scheduler v1.18.2 in ${root}/usr/local/bin`);
    expect(mode("usr/local/bin/karmada-scheduler")).toBe("755");
    // a directory on the host is copied from, never emptied
    expect(fs.existsSync(path.join(root, "opt/bin/karmada-scheduler"))).toBe(true);
    const wrong = setup({ components: { scheduler: { version: "v1.18.3" } } });
    const w = bash(installScript(wrong.hs, wrong.hs.machines[0], "karmada-scheduler"));
    expect(w.code).toBe(1);
    expect(w.stderr).toContain(
      "pulumi-karmada: cp1: check-version-karmada-scheduler: installed karmada-scheduler reports version v1.18.2, expected v1.18.3",
    );
  });

  test("service: a first start waits for nothing (its ready command waits), an unchanged process is left alone, a flag change restarts and waits, stop", () => {
    const { cp, hs } = setup();
    const host = hs.machines[0];
    const files = fakeFiles("karmada-scheduler", "s");
    expect(bash(pkiScript(hs, host, "karmada-scheduler"), frameBundle("karmada-scheduler", files)).code).toBe(
      0,
    );
    const fingerprint = publicFilesFingerprint("karmada-scheduler", files);
    const healthy = `karmada-scheduler healthy at http://${ADDRESS}:10351/healthz`;
    const start = bash(serviceScript(cp, hs, host, "karmada-scheduler", fingerprint));
    expect(start.stderr).toBe("");
    expect(start.stdout).toContain(
      "first start of karmada-scheduler on cp1: its ready command waits until it is healthy",
    );
    expect(start.stdout).not.toContain(healthy);
    const ready = bash(readyScript(cp, hs, host, "karmada-scheduler"));
    expect(ready).toMatchObject({ code: 0, stderr: "" });
    expect(ready.stdout).toContain(healthy);
    const pid = childPid("karmada-scheduler");
    const unchanged = bash(serviceScript(cp, hs, host, "karmada-scheduler", fingerprint));
    expect(unchanged.stdout).toContain("karmada-scheduler already runs this binary, flags and certificates");
    expect(unchanged.stdout).toContain(healthy);
    expect(childPid("karmada-scheduler")).toBe(pid);

    // a restart proves health itself: the next host's command (which depends on this one) rolls only then
    const changed = setup({}, { "kube-api-qps": "77" });
    const restart = bash(serviceScript(changed.cp, changed.hs, host, "karmada-scheduler", fingerprint));
    expect(restart.stdout).toContain("restarting karmada-scheduler: binary, flags or certificates changed");
    expect(restart.stdout.indexOf(healthy)).toBeGreaterThan(restart.stdout.indexOf("restarting"));
    const newPid = childPid("karmada-scheduler");
    expect(newPid).not.toBe(pid);
    expect(fs.readFileSync(`/proc/${newPid}/cmdline`, "utf8").split("\0")).toContain("--kube-api-qps=77");

    const stop = bash(serviceRemoveScript(changed.cp, changed.hs, host, "karmada-scheduler"));
    expect(stop.stdout).toContain("karmada-scheduler stopped");
    expect(fs.existsSync(`/proc/${newPid}`)).toBe(false);
  });

  test("service: a component leaving the host for good gets the short remove grace, a restart the stop grace", () => {
    const { cp, hs } = setup();
    const host = hs.machines[0];
    const files = fakeFiles("karmada-apiserver", "a");
    const waits = (script: string) =>
      [...script.matchAll(/seq 1 (\d+)\); do/g)].map((m) => Number(m[1]) / 10);
    const restartScript = serviceScript(
      cp,
      hs,
      host,
      "karmada-apiserver",
      publicFilesFingerprint("karmada-apiserver", files),
    );
    // the API server's drain comes on top of the grace every component gets
    expect(waits(restartScript)).toContain(CONTROL_PLANE_STOP_GRACE_SECONDS + hs.apiServerDrainSeconds);
    expect(componentStopGraceSeconds(hs, "karmada-apiserver")).toBe(
      CONTROL_PLANE_STOP_GRACE_SECONDS + hs.apiServerDrainSeconds,
    );
    expect(componentStopGraceSeconds(hs, "karmada-scheduler")).toBe(CONTROL_PLANE_STOP_GRACE_SECONDS);
    expect(waits(serviceRemoveScript(cp, hs, host, "karmada-apiserver"))).toEqual([
      CONTROL_PLANE_REMOVE_GRACE_SECONDS,
    ]);
    expect(CONTROL_PLANE_REMOVE_GRACE_SECONDS).toBeLessThan(CONTROL_PLANE_STOP_GRACE_SECONDS);
  });

  test("service: certificates changed on the host are refused before anything restarts", () => {
    const { cp, hs } = setup();
    const files = fakeFiles("karmada-scheduler", "s");
    fs.writeFileSync(path.join(root, "etc/karmada/karmada-scheduler/pki/ca.crt"), "tampered\n");
    const r = bash(
      serviceScript(
        cp,
        hs,
        hs.machines[0],
        "karmada-scheduler",
        publicFilesFingerprint("karmada-scheduler", files),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `pulumi-karmada: cp1: check-karmada-scheduler-files: certificates in ${root}/etc/karmada/karmada-scheduler/pki differ from the ones issued for this run`,
    );
  });

  test("service: a binary of another version than asked for is refused (its install has not run)", () => {
    const { cp, hs } = setup({ components: { scheduler: { version: "v1.18.3" } } });
    const r = bash(serviceScript(cp, hs, hs.machines[0], "karmada-scheduler", "0".repeat(64)));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("karmada-scheduler runs karmada-scheduler v1.18.3 from /opt/bin");
    expect(r.stderr).toContain(
      `pulumi-karmada: cp1: check-karmada-scheduler-binary: ${root}/usr/local/bin/karmada-scheduler reports version v1.18.2, expected v1.18.3: its install command has not run`,
    );
  });

  test("service: a component that never becomes healthy fails with its log, in its ready command and once it ran before", () => {
    const { cp, hs } = setup();
    const host = hs.machines[0];
    const files = fakeFiles("karmada-descheduler", "d");
    expect(bash(installScript(hs, host, "karmada-descheduler")).code).toBe(0);
    expect(
      bash(pkiScript(hs, host, "karmada-descheduler"), frameBundle("karmada-descheduler", files)).code,
    ).toBe(0);
    const service = serviceScript(
      cp,
      hs,
      host,
      "karmada-descheduler",
      publicFilesFingerprint("karmada-descheduler", files),
    );
    const unhealthy = `karmada-descheduler is not healthy at http://${ADDRESS}:10358/healthz after 5s (log above)`;
    try {
      expect(bash(service)).toMatchObject({ code: 0, stderr: "" });
      const ready = bash(readyScript(cp, hs, host, "karmada-descheduler"));
      expect(ready.code).toBe(1);
      expect(ready.stderr).toContain("descheduler: cannot load kubeconfig");
      expect(ready.stderr).toContain(`pulumi-karmada: cp1: wait-karmada-descheduler-healthy: ${unhealthy}`);
      // it ran here before: the service command itself waits (and fails), so no next host goes on
      const again = bash(service);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`pulumi-karmada: cp1: wait-karmada-descheduler-healthy: ${unhealthy}`);
    } finally {
      bash(serviceRemoveScript(cp, hs, host, "karmada-descheduler"));
    }
  });

  test("preflight: a port taken by something else is named; the component's own service is fine", async () => {
    const { cp, hs } = setup();
    const host = hs.machines[0];
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(10351, ADDRESS, resolve));
    try {
      const r = bash(preflightScript(cp, hs, host));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `pulumi-karmada: cp1: check-ports: port 10351 on ${ADDRESS} is already in use (karmada-scheduler health port): stop what listens there`,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    // the port belongs to the component's own running service: nothing to complain about
    const files = fakeFiles("karmada-scheduler", "p");
    expect(bash(pkiScript(hs, host, "karmada-scheduler"), frameBundle("karmada-scheduler", files)).code).toBe(
      0,
    );
    try {
      expect(
        bash(
          serviceScript(
            cp,
            hs,
            host,
            "karmada-scheduler",
            publicFilesFingerprint("karmada-scheduler", files),
          ),
        ).code,
      ).toBe(0);
      expect(bash(readyScript(cp, hs, host, "karmada-scheduler")).code).toBe(0);
      expect(bash(preflightScript(cp, hs, host))).toMatchObject({ code: 0, stderr: "" });
    } finally {
      bash(serviceRemoveScript(cp, hs, host, "karmada-scheduler"));
    }
  });
});
