import { FIXTURE_CRD_SOURCE } from "../../support/estate";
import { runProgram } from "../../support/program";
import { simulateControllers } from "../members/simulate";

describe("examples/members (imports the package by name)", () => {
  it("registers a push and a pull member and installs the addons on every member", async () => {
    const kubeconfig = "apiVersion: v1\nkind: Config\n";
    const { records } = await runProgram(
      "../../examples/members",
      {
        "project:crds": FIXTURE_CRD_SOURCE,
        "project:hostKubeconfig": kubeconfig,
        "project:edge-pushKubeconfig": kubeconfig,
        "project:edge-pullKubeconfig": kubeconfig,
      },
      ["project:hostKubeconfig", "project:edge-pushKubeconfig", "project:edge-pullKubeconfig"],
      simulateControllers,
    );
    const clusters = records.filter((r) => r.type === "kubernetes:cluster.karmada.io/v1alpha1:Cluster");
    expect(clusters.map((c) => c.inputs.spec?.syncMode).sort()).toEqual(["Pull", "Push"]);
    expect(
      records.some((r) => r.inputs.metadata?.name === "karmada-agent" && r.type.endsWith(":Deployment")),
    ).toBe(true);
    expect(
      records.some(
        (r) => r.inputs.metadata?.name === "karmada-descheduler" && r.type.endsWith(":Deployment"),
      ),
    ).toBe(true);
    const teamNamespaces = records.filter(
      (r) => r.type === "kubernetes:core/v1:Namespace" && r.inputs.metadata?.name === "team-a",
    );
    expect(new Set(teamNamespaces.map((r) => r.provider)).size).toBe(2);
  });
});
