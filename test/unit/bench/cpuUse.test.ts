import {
  cpuByProgram,
  describeCpuUse,
  parseMachineTicks,
  parseProcessTicks,
  programOf,
} from "../../../bench/support/cpuUse";

describe("CPU use of a bench span", () => {
  it("sums busy and idle ticks of the machine from /proc/stat's cpu line", () => {
    const stat = "cpu  100 5 30 1000 20 1 2 3 0 0\ncpu0 50 2 15 500 10 0 1 1 0 0\nintr 1\n";
    expect(parseMachineTicks(stat)).toEqual({ busy: 100 + 5 + 30 + 1 + 2 + 3, idle: 1020 });
    expect(() => parseMachineTicks("intr 1\n")).toThrow(/no cpu line/);
  });

  it("reads utime + stime of a process whose name holds spaces and parentheses", () => {
    const stat = "4242 (kube (api) server) S 1 4242 1 0 -1 4194304 10 0 0 0 250 75 3 4 20 0 12 0 99";
    expect(parseProcessTicks(stat)).toBe(325);
  });

  it("names a process by the basename of argv[0]", () => {
    expect(programOf("/root/.pulumi/plugins/resource-kubernetes-v4/pulumi-resource-kubernetes\0-v\0")).toBe(
      "pulumi-resource-kubernetes",
    );
    expect(programOf("")).toBe("?");
    expect(
      programOf(
        "/usr/bin/node\0/repo/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js\u0000127.0.0.1:1\0",
      ),
    ).toBe("node dynamic-provider/index.js");
    expect(
      programOf(
        "node\0/repo/node_modules/ts-node/dist/bin.js\0--transpile-only\0/repo/scripts/sandbox/network.ts\0/tmp/n.json\0",
      ),
    ).toBe("node sandbox/network.ts");
    expect(programOf("node\0--version\0")).toBe("node");
  });

  it("counts each process from its first sample, groups by program, most first, idle ones left out", () => {
    const samples = new Map([
      [1, { program: "kube-apiserver", first: 100, last: 160 }],
      [2, { program: "kube-apiserver", first: 0, last: 40 }],
      [3, { program: "pulumi", first: 0, last: 150 }],
      [4, { program: "sshd", first: 7, last: 7 }],
    ]);
    expect(cpuByProgram(samples, 10)).toEqual([
      { program: "pulumi", ms: 1500 },
      { program: "kube-apiserver", ms: 1000 },
    ]);
  });

  it("prints busy time, cores in use and the top programs", () => {
    const line = describeCpuUse({
      wallMs: 10_000,
      busyMs: 19_000,
      cores: 2,
      byProgram: [{ program: "kube-apiserver", ms: 8_000 }],
    });
    expect(line).toContain("19.0 s busy over 10.0 s (1.90 of 2 cores); kube-apiserver 8.0 s");
  });
});
