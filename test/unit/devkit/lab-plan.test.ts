/**
 * The lab's plan: every address, range and name derived from a small spec is unique, inside the lab's
 * range, and fits what the kernel and the parts accept (veth names ≤ 15 characters, containerd's socket
 * path ≤ 107 bytes); a bad spec is refused naming the field.
 */
import fc from "fast-check";
import { ESTATE_CLUSTERS, e2eLabSpec, sandboxLabSpec } from "../../../devkit/lab/labs";
import { nodeFiles } from "../../../devkit/lab/nodeConfig";
import {
  LabSpec,
  MAX_CLUSTERS,
  MAX_MACHINES,
  MAX_NODES_PER_CLUSTER,
  clusterOf,
  machineOf,
  planLab,
} from "../../../devkit/lab/plan";
import { machineLauncherScript, machineNetworkFile, NSPAWN_REBOOT_STATUS } from "../../../devkit/lab/machine";
import { ConfigError } from "../../../lib/validation/errors";

const ipValue = (ip: string) => ip.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
const inCidr = (ip: string, cidr: string) => {
  const [net, bits] = cidr.split("/");
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipValue(ip) / size) === Math.floor(ipValue(net) / size);
};

const specArb = fc.record({
  name: fc.constantFrom("e2e", "sandbox", "x", "lab-12345678"),
  octet: fc.integer({ min: 1, max: 254 }).filter((o) => o !== 96),
  dir: fc.constant("/tmp/lab"),
  clusters: fc
    .subarray(["host", "member1", "member2", "m3", "m4", "m5", "m6", "m7", "m8"], {
      minLength: 1,
      maxLength: MAX_CLUSTERS,
    })
    .chain((names) =>
      fc.tuple(
        ...names.map((name) =>
          fc.integer({ min: 0, max: MAX_NODES_PER_CLUSTER }).map((nodes) => ({ name, nodes })),
        ),
      ),
    ),
});

describe("planLab", () => {
  test("every address is distinct and inside the lab's range; node pod ranges inside their cluster's", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const plan = planLab(spec as LabSpec);
        const addresses = [
          plan.gateway,
          plan.uplink.hostAddress,
          plan.uplink.labAddress,
          ...plan.clusters.flatMap((c) => [c.apiAddress, ...c.nodes.map((n) => n.address)]),
        ];
        expect(new Set(addresses).size).toBe(addresses.length);
        for (const a of addresses) expect(inCidr(a, plan.range)).toBe(true);
        const podRanges = plan.clusters.flatMap((c) => c.nodes.map((n) => n.podCidr));
        expect(new Set(podRanges).size).toBe(podRanges.length);
        for (const c of plan.clusters) {
          for (const n of c.nodes) {
            expect(inCidr(n.podCidr.split("/")[0], c.podCidr)).toBe(true);
            // a pod range never overlaps the bridge's /24
            expect(inCidr(n.podCidr.split("/")[0], `10.${spec.octet}.0.0/24`)).toBe(false);
          }
        }
      }),
    );
  });

  test("names fit the kernel and containerd: veths ≤ 15 characters, socket paths ≤ 107 bytes", () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const plan = planLab(spec as LabSpec);
        expect(plan.uplink.hostVeth.length).toBeLessThanOrEqual(15);
        const veths = plan.clusters.flatMap((c) => c.nodes.map((n) => n.labVeth));
        expect(new Set(veths).size).toBe(veths.length);
        for (const v of veths) expect(v.length).toBeLessThanOrEqual(15);
        for (const c of plan.clusters) {
          for (const n of c.nodes)
            expect(Buffer.byteLength(`${nodeFiles(n).containerdSocket}.ttrpc`)).toBeLessThanOrEqual(107);
        }
      }),
    );
  });

  test("the project's labs: a host cluster (three nodes; five in the e2e lab) and two one-node members, on separate ranges", () => {
    const e2e = planLab(e2eLabSpec());
    const sandbox = planLab(sandboxLabSpec());
    expect(e2e.range).not.toBe(sandbox.range);
    expect(e2e.netns).not.toBe(sandbox.netns);
    expect(ESTATE_CLUSTERS.map((c) => `${c.name}:${c.nodes}`)).toEqual(["host:3", "member1:1", "member2:1"]);
    expect(clusterOf(sandbox, "host").nodes.map((n) => n.name)).toEqual(["host-n1", "host-n2", "host-n3"]);
    expect(clusterOf(e2e, "host").nodes.map((n) => n.name)).toEqual([1, 2, 3, 4, 5].map((i) => `host-n${i}`));
    expect(clusterOf(e2e, "host").apiAddress).toBe("10.231.0.2");
    expect(e2e.registry).toBe("10.231.0.1:5000");
    expect(() => clusterOf(e2e, "nope")).toThrow(/has no cluster nope \(it has host, member1, member2\)/);
  });

  test.each([
    [{ name: "Bad_Name" }, "name"],
    [{ name: "much-too-long-lab" }, "name"],
    [{ octet: 96 }, "octet"],
    [{ octet: 0 }, "octet"],
    [{ octet: 1.5 }, "octet"],
    [{ dir: "relative/dir" }, "dir"],
    [{ clusters: [] }, "clusters"],
    [
      {
        clusters: [
          { name: "a", nodes: 1 },
          { name: "a", nodes: 1 },
        ],
      },
      "clusters[1].name",
    ],
    [{ clusters: [{ name: "a", nodes: 10 }] }, "clusters[0].nodes"],
    [{ clusters: [{ name: "a", nodes: -1 }] }, "clusters[0].nodes"],
    [{ machines: [{ name: "Cp1" }] }, "machines[0].name"],
    [{ machines: [{ name: "cp1" }, { name: "cp1" }] }, "machines[1].name"],
    [{ machines: [{ name: "a-machine-name-too-long" }] }, "machines[0].name"],
    [{ machines: Array.from({ length: MAX_MACHINES + 1 }, (_, i) => ({ name: `m${i}` })) }, "machines"],
  ])("%j is refused naming %s", (override, field) => {
    const spec = { ...e2eLabSpec(), ...override } as LabSpec;
    let error: unknown;
    try {
      planLab(spec);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
  });
});

describe("machines of a lab", () => {
  const spec: LabSpec = {
    name: "m",
    octet: 240,
    dir: "/tmp/lab-m",
    clusters: [],
    machines: Array.from({ length: MAX_MACHINES }, (_, i) => ({ name: `machine${i}` })),
  };
  const plan = planLab(spec);

  test("a lab of machines alone needs no cluster; every machine has its own address above every node's, nspawn name and cgroup", () => {
    expect(plan.clusters).toEqual([]);
    const addresses = plan.machines.map((m) => m.address);
    expect(new Set(addresses).size).toBe(MAX_MACHINES);
    for (const a of addresses) {
      expect(inCidr(a, `${plan.gateway}/24`)).toBe(true);
      expect(Number(a.split(".")[3])).toBeGreaterThan(99); // nodes end at .99
      expect(Number(a.split(".")[3])).toBeLessThan(200); // the library-upgrade gate's hosts start at .200
    }
    expect(new Set(plan.machines.map((m) => m.nspawnName)).size).toBe(MAX_MACHINES);
    expect(plan.machines.every((m) => m.cgroup.startsWith(`${plan.cgroup}/`))).toBe(true);
    expect(machineOf(plan, "machine3").address).toBe("10.240.0.104");
    expect(() => machineOf(plan, "nope")).toThrow(/has no machine nope/);
  });

  test("the launcher joins the machine's cgroup, boots it on the lab bridge in the lab namespace, and again only after a reboot", () => {
    const m = machineOf(plan, "machine0");
    const script = machineLauncherScript(plan, m);
    expect(script).toContain(`--network-bridge=${plan.bridge}`);
    expect(script).toContain(`nsenter --net=/run/netns/${plan.netns} systemd-nspawn`);
    expect(script).toContain("--register=no --keep-unit");
    expect(script).toContain(`--hostname=${m.name}`);
    expect(script).toContain(`[ "$status" = ${NSPAWN_REBOOT_STATUS} ] || exit "$status"`);
    expect(script.indexOf("cgroup.procs")).toBeLessThan(script.indexOf("systemd-nspawn"));
    const network = machineNetworkFile(plan, m);
    expect(network).toContain(`Address=${m.address}/24`);
    expect(network).toContain(`Gateway=${plan.gateway}`);
  });
});
