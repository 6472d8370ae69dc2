/**
 * The host drift probe (lib/hosts/drift.ts): run with bash against real processes under the real
 * supervisor, it reports running/stopped and a command-line digest equal to the planned one exactly
 * when the process runs the planned arguments; its output parses back; descriptions tell states apart.
 */
import { spawnSync } from "child_process";
import { createHash } from "crypto";
import * as fc from "fast-check";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  ObservedService,
  PROBE_MARKER,
  commandLineDigest,
  describeService,
  parseProbeOutput,
  plannedService,
  serviceProbeScript,
  unitFileDigest,
} from "../../../lib/hosts/drift";
import { renderScript } from "../../../lib/hosts/script";
import { ServiceSpec, systemdServiceUnit } from "../../../lib/hosts/service";
import { serviceCommands } from "../../../lib/hosts/serviceRunner";
import { knownHostsLine, sshHopOptions } from "../../../lib/hosts/sshRun";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-drift-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const run = (body: string) =>
  spawnSync("bash", ["-c", renderScript({ host: "h", purpose: "t", steps: [{ name: "op", body }] })], {
    encoding: "utf8",
  });

describe("drift probe against real processes (supervisor runner)", () => {
  const spec: ServiceSpec = {
    name: "pk-sleeper",
    description: "test",
    exec: ["/bin/sleep", "301"],
    logFile: path.join(tmp, "sleeper.log"),
    stateDir: path.join(tmp, "state"),
  };
  const cmds = serviceCommands("supervisor", spec, tmp);
  const probe = () => {
    const out = run(serviceProbeScript("supervisor", spec, tmp));
    expect(out.status).toBe(0);
    return parseProbeOutput(out.stdout);
  };
  const planned = plannedService("supervisor", spec);
  afterAll(() => run(cmds.stop));

  it("finds the planned state while it runs as planned", () => {
    expect(run(`${cmds.install}\n${cmds.start}`).status).toBe(0);
    expect(probe()).toEqual(planned);
    expect(describeService(probe())).toBe(describeService(planned));
  });

  it("finds it stopped after a stop by hand", () => {
    expect(run(cmds.stop).status).toBe(0);
    expect(probe()).toEqual({ running: false });
    expect(describeService(probe())).toBe("stopped");
  });

  it("finds another command line when it was started with an edited flag", () => {
    const edited = serviceCommands("supervisor", { ...spec, exec: ["/bin/sleep", "302"] }, tmp);
    expect(run(edited.start).status).toBe(0);
    const found = probe();
    expect(found.running).toBe(true);
    expect(found.commandLine).toBe(commandLineDigest(["/bin/sleep", "302"]));
    expect(describeService(found)).not.toBe(describeService(planned));
    expect(run(`${cmds.restart}`).status).toBe(0);
    expect(probe()).toEqual(planned);
  });
});

describe("drift probe under systemd (the unit file is part of the plan)", () => {
  const spec: ServiceSpec = {
    name: "pk-web",
    description: "test",
    exec: ["/usr/bin/web", "--port=1"],
    logFile: "/var/log/web.log",
    stateDir: "/run/web",
  };

  it("plans the digest of the unit exactly as written on the host", () => {
    const planned = plannedService("systemd", spec);
    const unitDir = path.join(tmp, "etc/systemd/system");
    fs.mkdirSync(unitDir, { recursive: true });
    // as writeFileIfChanged writes it: the content, one trailing newline
    fs.writeFileSync(
      path.join(unitDir, "pk-web.service"),
      systemdServiceUnit(spec).replace(/\n$/, "") + "\n",
    );
    const script = serviceProbeScript("systemd", spec, tmp)
      // no systemd here: the service reads as inactive, the unit file is still digested
      .replace(/systemctl is-active --quiet [^;]*;/, "false;");
    const found = parseProbeOutput(run(script).stdout);
    expect(found).toEqual({ running: false, unit: planned.unit });
    expect(describeService(found)).toBe(`stopped, unit sha256:${planned.unit!.slice(0, 12)}`);
  });

  it("reports a missing unit", () => {
    const script = serviceProbeScript("systemd", { ...spec, name: "pk-none" }, tmp).replace(
      /systemctl is-active --quiet [^;]*;/,
      "false;",
    );
    expect(parseProbeOutput(run(script).stdout)).toEqual({ running: false, unit: "missing" });
  });
});

describe("probe output and descriptions", () => {
  const digest = fc.stringMatching(/^[0-9a-f]{64}$/);
  const observed = fc.record(
    {
      running: fc.boolean(),
      commandLine: digest,
      unit: fc.oneof(digest, fc.constant("missing")),
    },
    { requiredKeys: ["running"] },
  );

  it("parses what the probe prints, banners around it ignored", () => {
    fc.assert(
      fc.property(observed, (o: ObservedService) => {
        const line = `${PROBE_MARKER} ${o.running ? "running" : "stopped"} ${o.running ? (o.commandLine ?? "-") : "-"} ${o.unit ?? "-"}`;
        const parsed = parseProbeOutput(`Welcome!\npulumi-karmada: h: op (at 0s)\n${line}\ndone\n`);
        expect(parsed.running).toBe(o.running);
        expect(parsed.commandLine).toBe(o.running ? o.commandLine : undefined);
        expect(parsed.unit).toBe(o.unit);
      }),
    );
  });

  it("describes two states alike only when they are alike", () => {
    fc.assert(
      fc.property(observed, observed, (a, b) => {
        const same =
          a.running === b.running && (!a.running || a.commandLine === b.commandLine) && a.unit === b.unit;
        const norm = (o: ObservedService) => ({ ...o, commandLine: o.running ? o.commandLine : undefined });
        expect(describeService(norm(a)) === describeService(norm(b))).toBe(same);
      }),
    );
  });

  it("fails, quoting what it got, when the probe printed no result", () => {
    expect(() => parseProbeOutput("bash: line 1: oops")).toThrow(
      `printed no "${PROBE_MARKER}" line: bash: line 1: oops`,
    );
  });

  it("digests a command line as /proc/<pid>/cmdline reads with NULs as newlines", () => {
    expect(commandLineDigest(["/bin/a", "--x=1"])).toBe(
      createHash("sha256").update("/bin/a\n--x=1\n").digest("hex"),
    );
    expect(unitFileDigest("a\n")).toBe(unitFileDigest("a"));
  });
});

describe("ssh options of the drift checks", () => {
  const hop = { host: "127.0.0.2", port: 2222, user: "root", privateKey: "k" };

  it("pins the host key when given, accepts any otherwise (as @pulumi/command does)", () => {
    const pinned = sshHopOptions({ ...hop, hostKey: "ssh-ed25519 AAAA" }, "/k", "/kh");
    expect(pinned).toEqual(
      expect.arrayContaining(["StrictHostKeyChecking=yes", "UserKnownHostsFile=/kh", "BatchMode=yes"]),
    );
    expect(sshHopOptions(hop, "/k", "/kh")).toEqual(
      expect.arrayContaining(["StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null"]),
    );
    // the key is a file, never an argument
    expect(pinned.join(" ")).not.toContain("AAAA");
  });

  it("writes known_hosts entries with the port unless it is 22", () => {
    expect(knownHostsLine({ ...hop, hostKey: "ssh-ed25519 AAAA" })).toBe(
      "[127.0.0.2]:2222 ssh-ed25519 AAAA\n",
    );
    expect(knownHostsLine({ ...hop, port: 22, hostKey: "ssh-ed25519 AAAA" })).toBe(
      "127.0.0.2 ssh-ed25519 AAAA\n",
    );
  });
});
