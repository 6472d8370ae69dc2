import * as pulumi from "@pulumi/pulumi";
import { applyObjects, KubeObject } from "../../../lib/kube/apply";
import { CERTIFICATES_CHECKSUM_ANNOTATION, PLACEHOLDERS } from "../../../lib/manifests/placeholders";

// applyObjects checks each object before it registers anything, so no engine or mocks are involved
const opts = {
  parent: {} as pulumi.Resource,
  provider: {} as pulumi.ProviderResource,
};

const withToken = (token: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "karmada-scheduler", namespace: "karmada-system" },
  spec: { template: { metadata: { annotations: { [CERTIFICATES_CHECKSUM_ANNOTATION]: token } } } },
});

describe("applyObjects", () => {
  it("refuses an object holding a placeholder when no resolve is given, naming object, token and field", () => {
    expect(() => applyObjects("karmada", [withToken(PLACEHOLDERS.certificatesChecksum)], opts)).toThrow(
      `Deployment karmada-scheduler holds placeholder @@karmada:certificates-sha256@@ at spec.template.metadata.annotations.${CERTIFICATES_CHECKSUM_ANNOTATION} but is applied without resolve`,
    );
  });

  it("keeps on destroy only the kinds that hold data (namespaces, claims), before registering anything", () => {
    expect(() => applyObjects("karmada", [withToken("plain")], { ...opts, keptOnDestroy: true })).toThrow(
      "Deployment karmada-scheduler: only Namespaces and PersistentVolumeClaims are kept on destroy",
    );
  });

  it("refuses a Secret from a plain manifest", () => {
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, stringData: { k: "v" } };
    expect(() => applyObjects("karmada", [secret], opts)).toThrow(
      /secrets must be created with createSecret/,
    );
  });
});
