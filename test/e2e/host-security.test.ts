/**
 * The pinned SSH host key, end to end: a real sshd on a loopback host (127.0.8.2), the real Pulumi CLI
 * and command plugin (Automation API, file backend), and one `remote.Command` whose connection comes from
 * the library's own `hostConnection`. A host presenting another key than the pinned one fails `up` with
 * the provider's "host key mismatch" before any login (the command never runs: its marker file is
 * absent, sshd accepted no key); the right key succeeds (the marker appears); a preview with the host
 * unpinned warns once, naming it.
 */
import { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { hostConnection } from "../../lib/hosts/connection";
import { remoteInvocation, renderScript } from "../../lib/hosts/script";
import { rooted, shq } from "../../lib/hosts/shell";
import { resolveHosts } from "../../lib/hosts/spec";
import { createEngineEnv, EngineEnv } from "../../devkit/engine/env";
import { e2eTier } from "../../devkit/engine/tier";
import { inlineProgramStack } from "../../devkit/engine/workspace";
import { generateHostKey, pinnedHostKey, startTestBed, TestBed } from "../../devkit/hosts/testbed";

jest.setTimeout(300_000);

const tier = e2eTier("SSH host key pinning (test/e2e/host-security.test.ts)", {
  binaries: ["pulumi", "pulumi-language-nodejs"],
  plugins: ["command"],
});

/** Where the command leaves its mark, relative to the host root. */
const MARKER = "/var/lib/pulumi-karmada-e2e/marker";

tier.describe("a host whose SSH key is pinned", () => {
  let bed: TestBed;
  let engine: EngineEnv;
  let stack: Stack;
  /** The `hostKey` the next engine run pins (undefined: not pinned). */
  let pinned: string | undefined;
  let impostorKey: string;
  const host = () => bed.hosts[0];
  const marker = () => rooted(host().root, MARKER);
  const sshdLog = () => fs.readFileSync(path.join(bed.dir, host().name, "sshd.log"), "utf8");
  const logins = () => sshdLog().match(/Accepted publickey for /g)?.length ?? 0;
  // a line from the middle of the SSH key: the first body line is the same for every ed25519 OpenSSH key
  const keyLine = () => {
    const lines = bed.clientKey.trim().split("\n").slice(1, -1);
    return lines[Math.floor(lines.length / 2)];
  };

  beforeAll(async () => {
    bed = await startTestBed({ prefix: "127.0.8.", count: 1 });
    engine = createEngineEnv("pk-host-security-");
    // another host's key (same type), as an impostor or a reinstalled machine would present
    const impostor = path.join(bed.dir, "impostor");
    fs.mkdirSync(impostor);
    generateHostKey(impostor);
    impostorKey = pinnedHostKey(impostor);
    stack = await inlineProgramStack(engine, {
      stackName: "host-security",
      program: async () => {
        const [resolved] = resolveHosts(
          [
            {
              name: host().name,
              address: host().address,
              port: host().port,
              root: host().root,
              privateKey: pulumi.secret(bed.clientKey),
              hostKey: pinned,
            },
          ],
          "hosts",
        );
        const script = renderScript({
          host: resolved.name,
          purpose: "leave a mark",
          steps: [{ name: "mark", body: `mkdir -p "$(dirname ${shq(marker())})"\ntouch ${shq(marker())}` }],
        });
        new command.remote.Command("mark", {
          connection: hostConnection(resolved),
          create: remoteInvocation(script),
          addPreviousOutputInEnv: false,
        });
      },
    });
  });

  afterAll(async () => {
    await bed?.stop();
    engine?.cleanup();
  });

  test("a host presenting another key fails `up` with a host key mismatch before any command runs", async () => {
    pinned = impostorKey;
    const loginsBefore = logins();
    const started = Date.now();
    const failed = await stack.up({ color: "never" }).then(
      () => undefined,
      (e: Error) => e,
    );
    console.log(`up with the wrong key failed after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(failed).toBeDefined();
    const reported = failed!.message
      .split("\n")
      .filter((l) => /mismatch/.test(l))
      .join("\n");
    console.log(`the failed up reported:\n${reported}`);
    expect(reported).toContain("ssh: handshake failed: ssh: host key mismatch");
    expect(failed!.message).toContain("mark");
    // the command never ran, and the client never even logged in
    expect(fs.existsSync(marker())).toBe(false);
    expect(logins()).toBe(loginsBefore);
    expect(failed!.message.includes(keyLine())).toBe(false);
  });

  test("the host's own key succeeds and the command runs", async () => {
    pinned = host().hostKey;
    const loginsBefore = logins();
    const result = await stack.up({ color: "never" });
    // sshd logs each accepted login: the count the test above saw unchanged does move here
    expect(logins()).toBeGreaterThan(loginsBefore);
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(fs.existsSync(marker())).toBe(true);
    expect(`${result.stdout}${result.stderr}`.includes(keyLine())).toBe(false);
    expect(result.stdout).not.toContain("without a pinned hostKey");
  });

  test("a preview with the host unpinned warns once, naming it", async () => {
    pinned = undefined;
    const warnings: string[] = [];
    const onEvent = (e: EngineEvent) => {
      const d = e.diagnosticEvent;
      if (d && d.severity === "warning" && /pinned hostKey/.test(d.message)) warnings.push(d.message.trim());
    };
    await stack.preview({ color: "never", onEvent });
    expect(warnings).toEqual([
      `hosts without a pinned hostKey (${host().name}): their SSH identity is not verified; pin it with hostKey: "<type> <base64>" (ssh-keyscan -t ed25519 <address>)`,
    ]);
  });
});
