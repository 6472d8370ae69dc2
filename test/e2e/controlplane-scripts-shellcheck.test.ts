/**
 * The control-plane host scripts are shellcheck-clean, in every variant (supervisor with rooted paths,
 * systemd, the defaults). shellcheck comes from the system's packages, not the test bed.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { planControlPlaneHosts, probeScript, repairScript } from "../../lib/controlplane/hosts";
import { e2eTier } from "../../devkit/engine/tier";
import { requireBinary } from "../../devkit/testbed";
import { SSH_KEY, hostsConfig, resolveBoth } from "../unit/controlplane/hostsFixtures";

const tier = e2eTier(
  "control-plane host scripts are shellcheck-clean (test/e2e/controlplane-scripts-shellcheck.test.ts)",
  {
    binaries: ["shellcheck"],
  },
);

/** Every script of the variants, labelled by runner and command. */
function allScripts(): { label: string; script: string }[] {
  const rooted = hostsConfig({
    machines: [{ name: "cp1", address: "127.0.7.2", privateKey: SSH_KEY, root: "/srv/host-root" }],
    apiServiceHosts: { aggregatedApiserver: "127.0.7.100" },
    binaries: { path: "/opt/bin" },
  });
  const variants = [
    resolveBoth(
      {
        apiServer: { externalEndpoint: "127.0.7.100:5443" },
        components: { descheduler: { enabled: true } },
      },
      rooted,
    ),
    resolveBoth(undefined, hostsConfig({ serviceManager: "systemd" })),
    resolveBoth(),
  ];
  return variants.flatMap(({ cp, hs }) => [
    ...planControlPlaneHosts(cp, hs, () => "0".repeat(64)).flatMap((c) => [
      { label: `${hs.serviceManager} ${c.id}`, script: c.create },
      ...(c.delete ? [{ label: `${hs.serviceManager} ${c.id} (delete)`, script: c.delete }] : []),
    ]),
    // the drift checks' scripts (components/controlplane/drift.ts)
    ...hs.machines.flatMap((host) =>
      hs.components.flatMap((component) => [
        {
          label: `${hs.serviceManager} ${host.name} probe ${component}`,
          script: probeScript(cp, hs, host, component),
        },
        {
          label: `${hs.serviceManager} ${host.name} repair ${component}`,
          script: repairScript(cp, hs, host, component),
        },
      ]),
    ),
  ]);
}

tier.describe("control-plane host scripts", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-cp-shellcheck-"));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test("are shellcheck-clean", () => {
    const scripts = allScripts();
    expect(scripts.length).toBeGreaterThan(10);
    const files = scripts.map((s, i) => {
      const file = path.join(tmp, `script-${i}.sh`);
      fs.writeFileSync(file, s.script);
      return file;
    });
    // SC2041 flags the one-binary `for b in 'name'` loop of lib/hosts' shared installer
    const r = spawnSync(
      requireBinary("shellcheck"),
      ["--severity=style", "-e", "SC2041", "--format=gcc", ...files],
      { encoding: "utf8" },
    );
    const findings = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.replace(/^[^:]*script-(\d+)\.sh/, (_, i) => scripts[Number(i)].label));
    expect(findings).toEqual([]);
    expect(r.status).toBe(0);
  });
});
