import { describeMemoryUse, MemoryMeter, parseRssKib, roleOf } from "../../../bench/support/memoryUse";

describe("memory of a bench span", () => {
  it("tells the roles of a `pulumi up` apart by command line, and nothing else", () => {
    expect(roleOf("/home/u/.pulumi/bin/pulumi\0up\0--yes\0")).toBe("engine");
    expect(roleOf("/opt/engine/pulumi-language-nodejs\0-root=/p\u0000127.0.0.1:3\0")).toBe("engine");
    expect(
      roleOf(
        "/root/.pulumi/plugins/resource-kubernetes-v4.24.0/pulumi-resource-kubernetes\u0000127.0.0.1:5\0",
      ),
    ).toBe("providers");
    expect(
      roleOf(
        "/usr/bin/node\0--max-old-space-size=4096\0/p/node_modules/@pulumi/pulumi/cmd/run\0--monitor=x\0",
      ),
    ).toBe("program");
    expect(roleOf("/usr/bin/node\0/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js\0")).toBe(
      "dynamic providers",
    );
    expect(roleOf("/usr/bin/node\0/repo/bench/run.ts\0")).toBeUndefined();
    expect(roleOf("/usr/local/bin/kube-apiserver\0--etcd-servers=x\0")).toBeUndefined();
    expect(roleOf("")).toBeUndefined();
  });

  it("reads VmRSS in KiB, 0 for a process without one (a kernel thread)", () => {
    expect(parseRssKib("Name:\tpulumi\nVmPeak:\t 900 kB\nVmRSS:\t   123456 kB\nRssAnon:\t 1 kB\n")).toBe(
      123456,
    );
    expect(parseRssKib("Name:\tkthreadd\nState:\tS\n")).toBe(0);
  });

  it("samples this machine: a span with no `pulumi up` running finds no engine process", () => {
    const meter = new MemoryMeter(10_000);
    meter.start();
    const use = meter.stop();
    // this jest worker is node running jest, none of the roles; the sums are of what was found
    const sum =
      use.peakMib.engine + use.peakMib.providers + use.peakMib.program + use.peakMib["dynamic providers"];
    expect(use.totalPeakMib).toBeLessThanOrEqual(sum + 1e-9);
    for (const role of ["engine", "providers", "program", "dynamic providers"] as const)
      expect(use.peakMib[role] > 0).toBe(use.peakProcesses[role] > 0);
    expect(describeMemoryUse(use)).toMatch(
      /^ {4}memory peaks: engine \d+ MiB \(\d+ process(es)?\), providers .*; all together \d+ MiB$/,
    );
  });
});
