/**
 * The containerized estate on a lab: the settings the e2e tier computes for its lab are the ones
 * Pulumi.sandbox.yaml writes out for the sandbox lab (so `npm run start:containerized` runs what the tests
 * prove), and they pass the stacks program's own config check.
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { labEstateConfig } from "../../../devkit/lab/estate";
import { e2eLabSpec, sandboxLabSpec } from "../../../devkit/lab/labs";
import { planLab } from "../../../devkit/lab/plan";
import { REPO_ROOT } from "../../../devkit/testbed";
import { parseStackConfig } from "../../../stacks/config";

const sandboxFile = () =>
  parse(fs.readFileSync(path.join(REPO_ROOT, "Pulumi.sandbox.yaml"), "utf8")).config as Record<
    string,
    unknown
  >;
const asStackConfig = (config: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [`karmada:${k}`, v]));

test("Pulumi.sandbox.yaml holds exactly the estate the e2e tier runs, on the sandbox lab's addresses", () => {
  expect(asStackConfig(labEstateConfig(planLab(sandboxLabSpec())))).toEqual(sandboxFile());
});

test("the e2e lab's estate: registry, NodePort on a host node, the lab's member API servers", () => {
  const config = labEstateConfig(planLab(e2eLabSpec()), { namespace: "ns", nodePort: 32450, members: true });
  expect(config.controlPlane).toMatchObject({
    namespace: "ns",
    images: { registry: "10.231.0.1:5000/karmada" },
    apiServer: { serviceType: "NodePort", nodePort: 32450, externalEndpoint: "10.231.0.11:32450" },
  });
  expect(config.members).toEqual([
    { clusterName: "member1", mode: "Push", apiEndpoint: "https://10.231.0.3:6443" },
    { clusterName: "member2", mode: "Pull", apiEndpoint: "https://10.231.0.4:6443" },
  ]);
  expect(labEstateConfig(planLab(e2eLabSpec()), { members: false }).members).toEqual([]);
});

test("the stacks program accepts the settings as they are", () => {
  const raw = Object.fromEntries(
    Object.entries(sandboxFile()).map(([k, v]) => [k.replace(/^karmada:/, ""), v]),
  );
  expect(parseStackConfig(raw).controlPlane?.apiServer?.serviceType).toBe("NodePort");
});
