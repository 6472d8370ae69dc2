import * as fc from "fast-check";
import { builtinPkiFiles } from "../../../lib/addons/builtins";
import { CORE_COMPONENTS, OPTIONAL_COMPONENTS } from "../../../lib/catalog";
import { KarmadaComponent } from "../../../lib/catalog/components";
import { resolveEtcdInClusterSettings } from "../../../lib/etcd/resolve";
import { EtcdInClusterArgs } from "../../../lib/etcd/config";
import { etcdInClusterManifests } from "../../../lib/manifests/etcd";
import { PLACEHOLDERS, findPlaceholders } from "../../../lib/manifests/placeholders";
import {
  CERTIFICATES_CHECKSUM_ANNOTATION,
  hostWorkloadManifests,
  podTemplateName,
} from "../../../lib/manifests/workloads";
import { certificatesChecksum } from "../../../lib/pki/checksum";
import { COMPONENT_PKI_FILES, KUBECONFIG_COMPONENTS, podCertificateFiles } from "../../../lib/pki/layout";
import { testSettings } from "../../support/settings";

const pem = (body: string) => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;

describe("certificatesChecksum", () => {
  it("is a SHA-256 hex digest, the same for the same certificates in the same order", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), (bodies) => {
        const pems = bodies.map(pem);
        expect(certificatesChecksum(pems)).toMatch(/^[0-9a-f]{64}$/);
        expect(certificatesChecksum([...pems])).toBe(certificatesChecksum(pems));
      }),
    );
  });

  it("changes when any one certificate changes (a renewal), and with the order of files", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9+/]{8,40}$/), { minLength: 2, maxLength: 6 }),
        fc.nat(),
        (bodies, at) => {
          const pems = bodies.map(pem);
          const renewed = [...pems];
          renewed[at % pems.length] = pem(`${bodies[at % pems.length]}renewed`);
          expect(certificatesChecksum(renewed)).not.toBe(certificatesChecksum(pems));
          expect(certificatesChecksum([...pems].reverse())).not.toBe(certificatesChecksum(pems));
        },
      ),
    );
  });

  it("ignores surrounding whitespace (a PEM read back with or without its final newline)", () => {
    expect(certificatesChecksum([pem("a").trim(), pem("b")])).toBe(
      certificatesChecksum([pem("a"), pem("b")]),
    );
  });
});

describe("podCertificateFiles", () => {
  const components = Object.keys(COMPONENT_PKI_FILES) as KarmadaComponent[];

  it("lists public files only: the component's certificates and, with a kubeconfig, its client certificate", () => {
    for (const component of components) {
      const files = podCertificateFiles(component);
      expect(files.filter((f) => f.endsWith(".key"))).toEqual([]);
      expect(files).toContain("ca.crt");
      const client = `${component}-client.crt`;
      expect({ component, client: files.includes(client as never) }).toEqual({
        component,
        client: KUBECONFIG_COMPONENTS.includes(component),
      });
      for (const file of files.filter((f) => f !== client))
        expect(COMPONENT_PKI_FILES[component]).toContain(file);
    }
  });

  it("follows the Secret's own file list when given one (a built-in addon's Secret is narrower)", () => {
    const files = podCertificateFiles("karmada-search", builtinPkiFiles("karmada-search"));
    expect(files).not.toContain("front-proxy-ca.crt");
    expect(files).toEqual(expect.arrayContaining(["ca.crt", "search.crt", "karmada-search-client.crt"]));
  });

  it("covers every leaf certificate a component's Secret carries", () => {
    for (const component of components) {
      const leaves = COMPONENT_PKI_FILES[component].filter((f) => f.endsWith(".crt"));
      expect(podCertificateFiles(component)).toEqual(expect.arrayContaining(leaves));
    }
  });
});

describe("the certificates-checksum annotation in the manifests", () => {
  const enabled = {
    components: Object.fromEntries(OPTIONAL_COMPONENTS.map((c) => [c, { enabled: true }])),
  };

  it("is on every control-plane Deployment's pod template, as the placeholder, and names its component", () => {
    const objects = Object.values(hostWorkloadManifests(testSettings(enabled))).flat();
    const deployments = objects.filter((o) => o.kind === "Deployment") as any[];
    expect(deployments.length).toBe(CORE_COMPONENTS.length + OPTIONAL_COMPONENTS.length);
    for (const d of deployments) {
      expect(d.spec.template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION]).toBe(
        PLACEHOLDERS.certificatesChecksum,
      );
      expect(Object.keys(COMPONENT_PKI_FILES)).toContain(podTemplateName(d));
    }
    // nowhere else: Services and PodDisruptionBudgets carry no checksum
    const elsewhere = objects
      .filter((o) => o.kind !== "Deployment")
      .flatMap((o) => findPlaceholders(o).filter((u) => u.token === PLACEHOLDERS.certificatesChecksum));
    expect(elsewhere).toEqual([]);
  });

  it("keeps the user's pod annotations beside it", () => {
    const objects = Object.values(
      hostWorkloadManifests(
        testSettings({ components: { "karmada-scheduler": { annotations: { team: "a" } } } }),
      ),
    ).flat();
    const scheduler = objects.find(
      (o) => o.kind === "Deployment" && podTemplateName(o) === "karmada-scheduler",
    ) as any;
    expect(scheduler.spec.template.metadata.annotations).toEqual({
      team: "a",
      [CERTIFICATES_CHECKSUM_ANNOTATION]: PLACEHOLDERS.certificatesChecksum,
    });
  });

  it("is on the in-cluster etcd StatefulSet's pod template", () => {
    const settings = resolveEtcdInClusterSettings({ namespace: "karmada-system" } as EtcdInClusterArgs);
    const sts = Object.values(etcdInClusterManifests(settings))
      .flat()
      .find((o) => o.kind === "StatefulSet") as any;
    expect(sts.spec.template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION]).toBe(
      PLACEHOLDERS.certificatesChecksum,
    );
  });

  it("finds no pod-template name on an object without a pod template", () => {
    expect(podTemplateName({ apiVersion: "v1", kind: "Service", metadata: { name: "x" }, spec: {} })).toBe(
      undefined,
    );
  });
});
