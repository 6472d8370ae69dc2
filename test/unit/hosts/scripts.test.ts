import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { snapshotScript } from "../../../lib/etcd/hosts/backupScript";
import { certsScript } from "../../../lib/etcd/hosts/certsScript";
import { MEMBER_PKI_FILES, pkiBundle } from "../../../lib/etcd/hosts/pkiFiles";
import { installBinariesBody, resolveArtifact } from "../../../lib/hosts/artifact";
import { renderScript } from "../../../lib/hosts/script";
import { supervisorProgram } from "../../../lib/hosts/supervisor";
import { SECRET_KEY, scriptsOf, settingsWith, variantPlans } from "../../../devkit/hosts/scriptFixtures";

function ensureShellcheck(): void {
  if (spawnSync("shellcheck", ["--version"]).status !== 0) {
    execFileSync("apt-get", ["install", "-y", "-qq", "shellcheck"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-scripts-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function bash(script: string, stdin = ""): { code: number; stdout: string; stderr: string } {
  const r = spawnSync("bash", ["-c", script], { input: stdin, encoding: "utf8" });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe("every generated script", () => {
  const all = [
    ...variantPlans().flatMap(({ label, plan }) =>
      scriptsOf(plan).map((s) => ({ ...s, label: `${label}: ${s.label}` })),
    ),
    { label: "supervisor program", script: supervisorProgram() },
  ];

  it("is shellcheck-clean", () => {
    ensureShellcheck();
    const files = all.map((s, i) => {
      const file = path.join(tmp, `script-${i}.sh`);
      fs.writeFileSync(file, s.script);
      return file;
    });
    const r = spawnSync("shellcheck", ["--severity=style", "--format=gcc", ...files], { encoding: "utf8" });
    const findings = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.replace(/^[^:]*script-(\d+)\.sh/, (_, i) => all[Number(i)].label));
    expect(findings).toEqual([]);
    expect(r.status).toBe(0);
  });

  it("runs in strict mode, reports failures as 'pulumi-karmada: <host>: <step>: …' and never contains a key", () => {
    for (const { label, script } of all.filter((s) => s.label !== "supervisor program")) {
      expect({ label, strict: script.includes("\nset -euo pipefail\n") }).toEqual({ label, strict: true });
      expect(script).toContain("trap 'pk_on_error");
      expect(script).not.toContain("never-in-a-script");
      expect(script).not.toMatch(/PRIVATE KEY/);
    }
  });
});

describe("renderScript", () => {
  it("names host and step when a command fails, and stops there", () => {
    const script = renderScript({
      host: "etcd-1",
      purpose: "test",
      steps: [
        { name: "first", body: "echo one" },
        { name: "second", body: "false" },
        { name: "third", body: "echo never" },
      ],
    });
    const r = bash(script);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^pulumi-karmada: etcd-1: second: command failed \(exit 1, line \d+\): false$/m);
    expect(r.stdout).toContain("one");
    expect(r.stdout).not.toContain("never");
  });

  it("reports explained failures with pk_fail", () => {
    const r = bash(
      renderScript({ host: "h", purpose: "t", steps: [{ name: "check", body: 'pk_fail "port 1 busy"' }] }),
    );
    expect(r.stderr.trim()).toBe("pulumi-karmada: h: check: port 1 busy");
  });
});

describe("certificate script", () => {
  const files = Object.fromEntries(
    MEMBER_PKI_FILES.map((f) => [f, `-----BEGIN X-----\n${f}-content\n-----END X-----`]),
  ) as never;

  it("writes every file from stdin with mode 0600, idempotently", () => {
    const root = path.join(tmp, "certs-root");
    const settings = settingsWith(
      {
        serviceManager: "supervisor",
        hosts: [{ name: "m1", address: "10.0.0.1", privateKey: SECRET_KEY, root }],
      },
      1,
    );
    const script = certsScript(settings, settings.members[0]);
    const first = bash(script, pkiBundle(files));
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("7 certificate file(s) updated");
    for (const f of MEMBER_PKI_FILES) {
      const file = path.join(root, "etc/etcd/pki", f);
      expect(fs.readFileSync(file, "utf8")).toContain(`${f}-content`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(fs.statSync(path.join(root, "etc/etcd/pki")).mode & 0o777).toBe(0o700);
    expect(bash(script, pkiBundle(files)).stdout).toContain("0 certificate file(s) updated");
  });

  it("keeps the pki dir 0700 and its files 0600, owned by the service user, even when loosened on the host", () => {
    const root = path.join(tmp, "certs-loosened");
    const settings = settingsWith(
      {
        serviceManager: "supervisor",
        hosts: [{ name: "m1", address: "10.0.0.1", privateKey: SECRET_KEY, root }],
      },
      1,
    );
    const script = certsScript(settings, settings.members[0]);
    // etcd runs as the user running this script (root under systemd, the login user under the supervisor)
    const uid = process.getuid!();
    const pki = path.join(root, "etc/etcd/pki");
    expect(bash(script, pkiBundle(files)).code).toBe(0);
    fs.chmodSync(pki, 0o755);
    fs.chmodSync(path.join(pki, "client.key"), 0o644);
    if (uid === 0) fs.chownSync(path.join(pki, "server.key"), 65534, 65534);
    expect(bash(script, pkiBundle(files)).stdout).toContain("0 certificate file(s) updated");
    const stat = (f: string) => {
      const st = fs.statSync(f);
      return { f: path.relative(root, f), mode: (st.mode & 0o777).toString(8), uid: st.uid };
    };
    expect(stat(pki)).toEqual({ f: "etc/etcd/pki", mode: "700", uid });
    for (const f of MEMBER_PKI_FILES)
      expect(stat(path.join(pki, f))).toEqual({ f: `etc/etcd/pki/${f}`, mode: "600", uid });
  });

  it("refuses an incomplete bundle, naming host and step, and ignores unknown names", () => {
    const root = path.join(tmp, "certs-partial");
    const settings = settingsWith(
      {
        serviceManager: "supervisor",
        hosts: [{ name: "m1", address: "10.0.0.1", privateKey: SECRET_KEY, root }],
      },
      1,
    );
    const bundle = pkiBundle(files).replace(
      "--- pulumi-karmada file: peer.key ---",
      "--- pulumi-karmada file: ../evil ---",
    );
    const r = bash(certsScript(settings, settings.members[0]), bundle);
    expect(r.stderr.trim()).toBe(
      "pulumi-karmada: m1: read-certificates: certificate bundle on stdin lacks peer.key",
    );
    expect(fs.existsSync(path.join(root, "etc/etcd/evil"))).toBe(false);
  });
});

describe("binary install", () => {
  const bin = (root: string) => path.join(root, "usr/local/bin");
  function tarball(dir: string): { file: string; sha256: string } {
    fs.mkdirSync(path.join(dir, "etcd-v9.9.9"), { recursive: true });
    for (const b of ["etcd", "etcdctl"])
      fs.writeFileSync(path.join(dir, "etcd-v9.9.9", b), `#!/bin/sh\necho ${b}\n`, { mode: 0o755 });
    const file = path.join(dir, "etcd.tar.gz");
    execFileSync("tar", ["-czf", file, "-C", dir, "etcd-v9.9.9"]);
    const sha256 = execFileSync("sha256sum", [file], { encoding: "utf8" }).split(" ")[0];
    return { file, sha256 };
  }
  const install = (root: string, artifact: ReturnType<typeof resolveArtifact>) =>
    renderScript({
      host: "h",
      purpose: "t",
      steps: [
        {
          name: "install-binaries",
          body: installBinariesBody(artifact, {
            label: "etcd-v9.9.9",
            required: ["etcd", "etcdctl"],
            optional: ["etcdutl"],
            root,
            binDir: "/usr/local/bin",
            cacheDir: "/var/cache/pk",
          }),
        },
      ],
    });

  it("installs from a tarball on the host, checking its checksum; optional binaries may be absent", () => {
    const root = path.join(tmp, "install-ok");
    const { file, sha256 } = tarball(path.join(root, "opt"));
    const r = bash(install(root, resolveArtifact({ path: file.slice(root.length), sha256 }, "", "a")));
    expect(r.stderr).toBe("");
    expect(execFileSync(path.join(bin(root), "etcdctl"), { encoding: "utf8" }).trim()).toBe("etcdctl");
    expect(fs.existsSync(path.join(bin(root), "etcdutl"))).toBe(false);
  });

  it("refuses a tarball whose checksum differs, naming host and step", () => {
    const root = path.join(tmp, "install-bad");
    const { file } = tarball(path.join(root, "opt"));
    const r = bash(
      install(root, resolveArtifact({ path: file.slice(root.length), sha256: "0".repeat(64) }, "", "a")),
    );
    expect(r.stderr.trim()).toBe(
      `pulumi-karmada: h: install-binaries: sha256 of ${file} does not match ${"0".repeat(64)}`,
    );
  });

  it("refuses an artifact without a required binary", () => {
    const root = path.join(tmp, "install-missing");
    fs.mkdirSync(path.join(root, "opt/bin"), { recursive: true });
    fs.writeFileSync(path.join(root, "opt/bin/etcd"), "#!/bin/sh\n", { mode: 0o755 });
    const r = bash(install(root, resolveArtifact({ path: "/opt/bin" }, "", "a")));
    expect(r.stderr.trim()).toBe("pulumi-karmada: h: install-binaries: artifact has no etcdctl binary");
  });
});

describe("snapshot script", () => {
  it("keeps snapshots (all of Karmada's state, Secrets included) 0600 in a 0700 dir owned by the job's user", () => {
    const root = path.join(tmp, "snapshot-root");
    const settings = settingsWith(
      {
        serviceManager: "supervisor",
        hosts: [{ name: "m1", address: "10.0.0.1", privateKey: SECRET_KEY, root }],
      },
      1,
    );
    // stand-ins for etcdctl and etcdutl that write the snapshot world-readable, as a careless tool would
    const bin = path.join(root, "usr/local/bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(
      path.join(bin, "etcdctl"),
      '#!/usr/bin/env bash\nfor a in "$@"; do last=$a; done\ncase " $* " in *" snapshot save "*) echo data > "$last"; chmod 0644 "$last";; esac\n',
      { mode: 0o755 },
    );
    fs.writeFileSync(path.join(bin, "etcdutl"), "#!/usr/bin/env bash\necho 1, 2, 3, 4\n", { mode: 0o755 });
    // a backup dir that already exists, world-readable
    const dir = path.join(root, "var/backups/etcd");
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const r = bash(snapshotScript(settings, settings.members[0]));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const uid = process.getuid!();
    const stat = (f: string) => {
      const st = fs.statSync(path.join(dir, f));
      return { f, mode: (st.mode & 0o777).toString(8), uid: st.uid };
    };
    const written = fs.readdirSync(dir).sort();
    expect(written).toEqual([
      expect.stringMatching(/^etcd-snapshot-\d{8}T\d{6}Z\.db$/),
      expect.stringMatching(/^etcd-snapshot-\d{8}T\d{6}Z\.db\.sha256$/),
      "latest",
    ]);
    expect(stat(".")).toEqual({ f: ".", mode: "700", uid });
    for (const f of written) expect(stat(f)).toEqual({ f, mode: "600", uid });
  });
});
