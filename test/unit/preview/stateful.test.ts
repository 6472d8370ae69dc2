import { destructiveStatefulSteps, statefulKind } from "../../../lib/preview/stateful";

const STACK = "urn:pulumi:dev::estate::";
const CP = "karmada:index:KarmadaControlPlane";
const ETCD = "karmada:index:EtcdCluster";
const urn = (chain: string[], name: string) => `${STACK}${chain.join("$")}::${name}`;

describe("stateful resources", () => {
  test.each([
    [urn([CP, "tls:index/selfSignedCert:SelfSignedCert"], "karmada-karmada-ca"), "certificate-authority"],
    [urn([CP, "tls:index/privateKey:PrivateKey"], "karmada-front-proxy-ca-key"), "certificate-authority"],
    [urn([CP, "tls:index/privateKey:PrivateKey"], "karmada-sa-key"), "service-account-key"],
    [urn([ETCD, "command:remote:Command"], "etcd-etcd1-member"), "etcd-member"],
    [urn([ETCD, "random:index/randomString:RandomString"], "etcd-cluster"), "etcd-membership-record"],
    [urn([ETCD, "kubernetes:apps/v1:StatefulSet"], "etcd"), "etcd-data"],
    [urn(["kubernetes:core/v1:PersistentVolumeClaim"], "data"), "etcd-data"],
    [urn([ETCD, "kubernetes:core/v1:Namespace"], "etcd-ns"), "namespace"],
    [urn([ETCD, "kubernetes:core/v1:NamespacePatch"], "etcd-ns"), "namespace"],
    [urn([ETCD, "kubernetes:core/v1:PersistentVolumeClaimPatch"], "backup"), "etcd-data"],
    [
      urn(["karmada:index:MemberRegistration", "kubernetes:cluster.karmada.io/v1alpha1:Cluster"], "m1"),
      "member-registration",
    ],
  ])("%s holds %s", (resource, kind) => {
    expect(statefulKind(resource)).toBe(kind);
  });

  test.each([
    // leaves, their keys and what carries them are reissued and rewritten without loss
    urn([CP, "tls:index/privateKey:PrivateKey"], "karmada-apiserver-key"),
    urn([CP, "tls:index/locallySignedCert:LocallySignedCert"], "karmada-apiserver-cert"),
    urn([CP, "kubernetes:core/v1:Secret"], "karmada-cert"),
    urn([CP, "kubernetes:apps/v1:Deployment"], "karmada-scheduler"),
    // host scripts other than an etcd member's only (re)write files or (re)start services
    urn([ETCD, "command:remote:Command"], "etcd-etcd1-pki"),
    urn([CP, "command:remote:Command"], "karmada-cp1-member"),
    urn(["random:index/randomString:RandomString"], "suffix"),
  ])("%s holds nothing a replacement would lose", (resource) => {
    expect(statefulKind(resource)).toBeUndefined();
  });

  test("only replace and delete steps of stateful resources are destructive, each reported once", () => {
    const ca = urn([CP, "tls:index/selfSignedCert:SelfSignedCert"], "karmada-karmada-ca");
    const member = urn([ETCD, "command:remote:Command"], "etcd-etcd1-member");
    const leaf = urn([CP, "tls:index/locallySignedCert:LocallySignedCert"], "karmada-apiserver-cert");
    const steps = [
      { op: "update", urn: ca },
      { op: "same", urn: member },
      { op: "replace", urn: leaf },
      { op: "create-replacement", urn: ca },
      { op: "replace", urn: ca },
      { op: "replace", urn: ca },
      { op: "delete", urn: member },
    ];
    // in URN order: the EtcdCluster's member before the control plane's CA
    expect(destructiveStatefulSteps(steps)).toEqual([
      { op: "delete", urn: member, kind: "etcd-member" },
      { op: "create-replacement", urn: ca, kind: "certificate-authority" },
      { op: "replace", urn: ca, kind: "certificate-authority" },
    ]);
    expect(destructiveStatefulSteps(steps.filter((s) => s.urn !== ca && s.urn !== member))).toEqual([]);
  });
});
