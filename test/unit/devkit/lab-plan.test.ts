/**
 * The lab's plan: every address, range and name derived from a small spec is unique, inside the lab's
 * range, and fits what the kernel and the parts accept (veth names ≤ 15 characters, containerd's socket
 * path ≤ 107 bytes); a bad spec is refused naming the field.
 */
import fc from "fast-check";
import { ESTATE_CLUSTERS, e2eLabSpec, sandboxLabSpec } from "../../../devkit/lab/labs";
import { nodeFiles } from "../../../devkit/lab/nodeConfig";
import { LabSpec, MAX_CLUSTERS, MAX_NODES_PER_CLUSTER, clusterOf, planLab } from "../../../devkit/lab/plan";
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

  test("the project's labs: a host cluster of three nodes and two one-node members, on separate ranges", () => {
    const e2e = planLab(e2eLabSpec());
    const sandbox = planLab(sandboxLabSpec());
    expect(e2e.range).not.toBe(sandbox.range);
    expect(e2e.netns).not.toBe(sandbox.netns);
    expect(ESTATE_CLUSTERS.map((c) => `${c.name}:${c.nodes}`)).toEqual(["host:3", "member1:1", "member2:1"]);
    expect(clusterOf(e2e, "host").nodes.map((n) => n.name)).toEqual(["host-n1", "host-n2", "host-n3"]);
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
