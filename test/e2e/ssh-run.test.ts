/**
 * The drift checks' SSH client (lib/hosts/sshRun.ts, run inside the engine's dynamic-provider host)
 * against real sshds on loopback hosts: the script on stdin, direct and through a bastion, host keys
 * pinned (a wrong one refused before anything runs), failures named with their exit code and stderr,
 * and no key file left behind.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { SshTarget, runScriptOverSsh } from "../../lib/hosts/sshRun";
import { e2eTier } from "../../devkit/engine/tier";
import { TestBed, TestHost, startTestBed } from "../../devkit/hosts/testbed";

jest.setTimeout(120_000);

const tier = e2eTier("the drift checks' SSH client against real sshds (test/e2e/ssh-run.test.ts)", {});

/** Temporary directories the client makes (each removed once its run ends). */
const keyDirs = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith("pulumi-karmada-ssh-"));

tier.describe("runScriptOverSsh", () => {
  let bed: TestBed;
  let bastion: TestHost;
  let target: TestHost;
  const hop = (host: TestHost, hostKey = host.hostKey): Omit<SshTarget, "proxy"> => ({
    host: host.address,
    port: host.port,
    user: os.userInfo().username,
    privateKey: bed.clientKey,
    hostKey,
  });
  /** Lines of a host's sshd log that record a login. */
  const logins = (host: TestHost) =>
    fs
      .readFileSync(path.join(bed.dir, host.name, "sshd.log"), "utf8")
      .split("\n")
      .filter((l) => l.includes("Accepted publickey")).length;

  beforeAll(async () => {
    bed = await startTestBed({ prefix: "127.0.17.", count: 2 });
    [bastion, target] = bed.hosts;
  });

  afterAll(async () => {
    await bed?.stop();
  });

  test("runs the script from stdin on the host, its host key pinned", async () => {
    const before = keyDirs();
    const out = await runScriptOverSsh(
      hop(target),
      `set -eu\necho "sum $((20 + 22))"\ntouch ${target.root}/ran-direct\n`,
      30_000,
    );
    expect(out).toBe("sum 42\n");
    expect(fs.existsSync(path.join(target.root, "ran-direct"))).toBe(true);
    expect(keyDirs()).toEqual(before);
  });

  test("goes through the bastion when given one (the bastion logs the login it forwards)", async () => {
    const before = logins(bastion);
    const out = await runScriptOverSsh(
      { ...hop(target), proxy: hop(bastion) },
      `touch ${target.root}/ran-proxied\necho through`,
      30_000,
    );
    expect(out).toBe("through\n");
    expect(fs.existsSync(path.join(target.root, "ran-proxied"))).toBe(true);
    expect(logins(bastion)).toBe(before + 1);
    // a wrong bastion key stops the run before it reaches the host
    await expect(
      runScriptOverSsh(
        { ...hop(target), proxy: hop(bastion, target.hostKey) },
        `touch ${target.root}/ran-wrong-bastion`,
        30_000,
      ),
    ).rejects.toThrow(/script failed \(exit 255\)/);
    expect(fs.existsSync(path.join(target.root, "ran-wrong-bastion"))).toBe(false);
  });

  test("refuses a host whose key is not the pinned one, before anything runs", async () => {
    const run = runScriptOverSsh(hop(target, bastion.hostKey), `touch ${target.root}/ran-wrong-key`, 30_000);
    await expect(run).rejects.toThrow(/Host key verification failed/);
    expect(fs.existsSync(path.join(target.root, "ran-wrong-key"))).toBe(false);
  });

  test("names a failing script's exit code and the end of its stderr, never the key", async () => {
    const failure = await runScriptOverSsh(hop(target), "echo 'disk full' >&2\nexit 3", 30_000).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(failure?.message).toBe(
      `${os.userInfo().username}@${target.address}:${target.port}: script failed (exit 3): disk full`,
    );
    expect(failure?.message).not.toContain("PRIVATE KEY");
  });

  test("fails, naming the host, when nothing answers", async () => {
    bed.stopSshd(target.name);
    try {
      await expect(runScriptOverSsh(hop(target), "true", 30_000)).rejects.toThrow(
        new RegExp(
          `${target.address.replace(/\./g, "\\.")}:${target.port}: script failed \\(exit 255\\): .*refused`,
        ),
      );
    } finally {
      await bed.startSshd(target.name);
    }
  });
});
