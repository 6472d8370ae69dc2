/** What the e2e tier guard tells a user whose machine lacks something: where each missing piece comes from. */
import { buildHint, notRunBanner } from "../../../devkit/engine/tier";

describe("e2e tier hints", () => {
  it("sends test-bed binaries, the Pulumi engine and its plugins to build.sh, once per component", () => {
    expect(
      buildHint([
        "etcdctl",
        "kube-apiserver",
        "karmadactl",
        "pulumi",
        "pulumi-language-nodejs",
        "plugin tls 5.5.1",
      ]),
    ).toBe("run scripts/testbed/build.sh etcd kube karmada engine");
  });

  it("sends the components kept off PATH (previous releases, the machine image) to build.sh by their own names", () => {
    expect(buildHint(["karmada-previous", "kube-previous", "machine-image", "karmadactl"])).toBe(
      "run scripts/testbed/build.sh karmada-previous kube-previous machine-image karmada",
    );
  });

  it("sends the node binaries and the Karmada addons to build.sh too", () => {
    expect(
      buildHint(["kubelet", "kubectl", "kube-proxy", "karmada-search", "karmada-scheduler-estimator"]),
    ).toBe("run scripts/testbed/build.sh node karmada");
  });

  it("sends tools the test bed does not build to the system's packages, anything else to PATH", () => {
    expect(buildHint(["systemd-analyze", "shellcheck", "skopeo", "helm"])).toBe(
      "install systemd shellcheck skopeo (apt-get install -y systemd shellcheck skopeo); put helm on PATH",
    );
  });

  it("names what is missing, how to get it and the suite", () => {
    expect(notRunBanner("some suite", ["etcd", "plugin command 1.2.1"])).toBe(
      "E2E TIER NOT RUN: etcd, plugin command 1.2.1 (run scripts/testbed/build.sh etcd engine) [some suite]",
    );
  });
});
