import { bedLabSpec, LOAD_BALANCER, readLayout } from "../../../devkit/sandbox/bed";
import { planLab } from "../../../devkit/lab/plan";

describe("bedLabSpec: the lab of the local estate", () => {
  const layout = readLayout();

  test("Pulumi.local.yaml's machines, load balancer and members are the lab's, in address order", () => {
    const spec = bedLabSpec("/tmp/bed", layout, ["cp3"]);
    const plan = planLab(spec);
    expect(spec.dir).toBe("/tmp/bed/lab");
    expect(plan.machines.map((m) => [m.name, m.address])).toEqual([
      ...[...layout.etcdHosts, ...layout.controlPlaneHosts].map((h) => [h.name, h.address]),
      [LOAD_BALANCER, layout.vip],
      ["cp3", expect.stringMatching(/^10\.\d+\.0\.\d+$/)],
    ]);
    expect(plan.clusters.map((c) => [c.name, c.server, c.nodes.length])).toEqual(
      layout.members.map((m) => [m.clusterName, m.apiEndpoint, 0]),
    );
  });

  test("settings that disagree with the lab are an error naming each difference", () => {
    const moved = {
      ...layout,
      controlPlaneHosts: layout.controlPlaneHosts.map((h, i) => (i === 0 ? { ...h, port: 2222 } : h)),
      members: layout.members.map((m, i) => (i === 1 ? { ...m, apiEndpoint: "https://10.233.0.9:6443" } : m)),
    };
    const first = layout.controlPlaneHosts[0];
    expect(() => bedLabSpec("/tmp/bed", moved)).toThrow(
      new RegExp(
        `host ${first.name}: ${first.address.replace(/\./g, "\\.")}:2222, the lab has ${first.address.replace(/\./g, "\\.")}:22[\\s\\S]*member ${layout.members[1].clusterName}: https://10\\.233\\.0\\.9:6443`,
      ),
    );
  });

  test("an external endpoint outside a lab's range is an error", () => {
    expect(() => bedLabSpec("/tmp/bed", { ...layout, vip: "127.0.6.100" })).toThrow(
      /external endpoint 127\.0\.6\.100 is not a lab address/,
    );
  });
});
