/**
 * The upgrade gate: upgrading pulumi-karmada itself must never replace or delete anything stateful.
 * Two estates are deployed by the real engine with the PREVIOUS release of this library (a pinned
 * commit, unpacked and installed in the test: devkit/engine/previousRelease.ts) onto the e2e lab's
 * real nodes, then the same stacks are previewed and updated with the code under test, as a user who
 * bumps the package does:
 *   A. the containerized estate: etcd in-cluster (StatefulSet with its claims, namespace), the control
 *      plane's CAs and service-account key, the namespaces inside Karmada;
 *   B. etcd on three hosts over SSH (the members, their data, the membership record) under a
 *      containerized control plane; the hosts' sshds run in the lab's network, so the control plane's
 *      pods reach etcd on them.
 * A step that replaces or deletes one of those (lib/preview/stateful.ts) fails CI: a renamed child needs
 * an alias. After the upgrade `up`, etcd still holds every key written before, and a second `up` is quiet.
 */
import * as fs from "fs";
import * as path from "path";
import { destructiveStatefulSteps } from "../../lib/preview/stateful";
import {
  describeChanges,
  e2eTier,
  mirrorStacksProject,
  PREVIOUS_RELEASE,
  previousReleaseTree,
  recordSteps,
  setSecretConfig,
  setStructuredConfig,
  stacksProjectDir,
  StepRecord,
} from "../../devkit/engine";
import { LabEstate, labEstate } from "../../devkit/engine/labEstate";
import { LAB_NEEDS } from "../../devkit/lab/useLab";
import { addLabAddress } from "../../devkit/lab/network";
import { labPlace } from "../../devkit/lab/lab";
import { launcherPath } from "../../devkit/lab/place";
import { EtcdTestClient } from "../../devkit/hosts/etcdClient";
import { findEtcd } from "../../devkit/hosts/etcdBinaries";
import { HOST_ETCD_BIN, placeEtcdBinaries } from "../../devkit/hosts/etcdProgram";
import { startTestBed, TestBed } from "../../devkit/hosts/testbed";

jest.setTimeout(30 * 60_000);

const tier = e2eTier("upgrading pulumi-karmada itself on real nodes (test/e2e/library-upgrade.test.ts)", {
  binaries: LAB_NEEDS.binaries,
  plugins: [...(LAB_NEEDS.plugins ?? []), "command"],
});

/** Last octet of the first of estate B's etcd hosts on the lab bridge (nodes use .11–.99). */
const FIRST_HOST = 200;

const KEYS = 1000;
const KEY_PREFIX = "upgrade-gate/";

/** One estate of the gate: deployed with the previous release, then previewed and updated with ours. */
interface GateEstate {
  readonly label: string;
  readonly fx: LabEstate;
  preview?: StepRecord[];
}

tier.describe(`upgrading from ${PREVIOUS_RELEASE.label} to the code under test`, () => {
  let previous: string;
  let bed: TestBed | undefined;
  const estates: GateEstate[] = [];
  let etcdClient: EtcdTestClient | undefined;

  /** Stack B's `karmada:etcd`: the bed's hosts, `rename` giving a host another name. */
  const etcdOnHosts = (rename: Record<string, string> = {}) => ({
    mode: "hosts",
    hosts: {
      version: findEtcd().version,
      artifact: { path: HOST_ETCD_BIN },
      serviceManager: "supervisor",
      backup: { enabled: false },
      hosts: bed!.hosts.map((h) => ({
        name: rename[h.name] ?? h.name,
        address: h.address,
        port: h.port,
        hostKey: h.hostKey,
        root: h.root,
      })),
    },
  });

  /** Points the stack's project at the code under test (its settings file stays). */
  const switchToCurrent = (estate: GateEstate) => mirrorStacksProject(stacksProjectDir(estate.fx.engine));

  beforeAll(async () => {
    const started = Date.now();
    previous = previousReleaseTree();
    console.log(
      `previous release ${PREVIOUS_RELEASE.label} ready in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    // A: the containerized estate (no members: the gate is about what the library keeps)
    const a = await labEstate(
      "upgrade-containerized",
      { namespace: "upgrade-containerized", nodePort: 32447, members: false, etcdReplicas: 1 },
      previous,
    );
    estates.push({ label: "containerized", fx: a });

    // B: etcd on three hosts in the lab's network
    const b = await labEstate(
      "upgrade-etcd-hosts",
      { namespace: "upgrade-etcd-hosts", nodePort: 32448, members: false },
      previous,
    );
    estates.push({ label: "etcd on hosts", fx: b });
    const prefix = b.lab.plan.gateway.replace(/\d+$/, "");
    for (let i = 0; i < 3; i++) addLabAddress(b.lab.plan, `${prefix}${FIRST_HOST + i}`);
    // the hosts' sshds in a place of the lab: pods reach them, and the lab's teardown stops them too
    const launcher = launcherPath(labPlace(b.lab.plan, "upgrade-etcd-hosts"));
    bed = await startTestBed({ prefix, firstHost: FIRST_HOST, count: 3, port: 2222, launcher });
    const etcd = findEtcd();
    placeEtcdBinaries(bed, etcd);
    await setStructuredConfig(b.stack, { "karmada:etcd": etcdOnHosts() });
    await setSecretConfig(b.stack, "karmada:sshPrivateKey", bed.clientKey);

    for (const estate of estates) {
      const t = Date.now();
      const result = await estate.fx.stack.up();
      expect(result.summary.result).toBe("succeeded");
      console.log(
        `${estate.label}: deployed with ${PREVIOUS_RELEASE.label} in ${((Date.now() - t) / 1000).toFixed(0)} s`,
      );
    }

    const pki = (h: TestBed["hosts"][number], file: string) =>
      fs.readFileSync(path.join(h.root, "etc/etcd/pki", file), "utf8");
    const first = bed.hosts[0];
    etcdClient = new EtcdTestClient(
      bed.hosts.map((h) => `https://${h.address}:2379`),
      { ca: pki(first, "ca.crt"), cert: pki(first, "client.crt"), key: pki(first, "client.key") },
    );
    await etcdClient.putMany(KEY_PREFIX, KEYS);

    for (const estate of estates) {
      switchToCurrent(estate);
      const steps = recordSteps();
      await estate.fx.stack.preview({ onEvent: steps.onEvent });
      estate.preview = steps.steps;
      console.log(
        `${estate.label}: the upgrade's preview\n  ${describeChanges(steps.steps).join("\n  ") || "(no changes)"}`,
      );
    }
  });

  afterAll(async () => {
    etcdClient?.close();
    // the lab runs the next suites: its pods go (B's while its etcd hosts still answer)
    for (const estate of estates.reverse()) {
      await estate.fx.stack.destroy().catch((e) => console.error(`${estate.label}: destroy failed: ${e}`));
      estate.fx.cleanup();
    }
    await bed?.stop();
  });

  test.each(["containerized", "etcd on hosts"])(
    "%s: the preview with the current code replaces and deletes nothing stateful",
    (label) => {
      const estate = estates.find((e) => e.label === label)!;
      expect(estate.preview!.length).toBeGreaterThan(0);
      expect(destructiveStatefulSteps(estate.preview!)).toEqual([]);
    },
  );

  test.each(["containerized", "etcd on hosts"])(
    "%s: the upgrade `up` succeeds, and the next `up` changes nothing",
    async (label) => {
      const stack = estates.find((e) => e.label === label)!.fx.stack;
      const upgrade = recordSteps();
      expect((await stack.up({ onEvent: upgrade.onEvent })).summary.result).toBe("succeeded");
      expect(destructiveStatefulSteps(upgrade.steps)).toEqual([]);
      const again = recordSteps();
      await stack.up({ onEvent: again.onEvent });
      expect(describeChanges(again.steps)).toEqual([]);
    },
  );

  test("etcd on hosts keeps every key written before the upgrade", async () => {
    expect(await etcdClient!.count(KEY_PREFIX)).toBe(KEYS);
  });

  test("the gate sees what it guards against: a renamed host previews the deletion of its etcd member", async () => {
    const estate = estates.find((e) => e.label === "etcd on hosts")!;
    const last = bed!.hosts[bed!.hosts.length - 1].name;
    await setStructuredConfig(estate.fx.stack, {
      "karmada:etcd": etcdOnHosts({ [last]: `${last}-renamed` }),
    });
    const steps = recordSteps();
    await estate.fx.stack.preview({ onEvent: steps.onEvent });
    const destructive = destructiveStatefulSteps(steps.steps);
    expect(destructive.map((d) => `${d.op} ${d.kind}`)).toEqual(["delete etcd-member"]);
    expect(destructive[0].urn.endsWith(`-${last}-member`)).toBe(true);
  });
});
