/** Control-plane-on-hosts settings for unit tests: two machines behind a DNS name, supervisor runner. */
import * as pulumi from "@pulumi/pulumi";
import { EtcdCluster } from "../../../components/etcdCluster";
import { KarmadaControlPlane, KarmadaControlPlaneArgs } from "../../../components/karmadaControlPlane";
import { ControlPlaneConfig } from "../../../lib/controlplane/config";
import { resolveControlPlaneSettings } from "../../../lib/controlplane/resolve";
import {
  ControlPlaneHostsConfig,
  ControlPlaneHostsSettings,
  hostsModeControlPlaneConfig,
  resolveControlPlaneHostsSettings,
} from "../../../lib/controlplane/hosts";
import { ControlPlaneSettings } from "../../../lib/controlplane/settings";
import { validateControlPlaneConfig } from "../../../lib/controlplane/validate";
import { FIXTURE_CRD_SOURCE } from "../../support/estate";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";
import { externalEtcdCredentials } from "../../../devkit/pki";
import { Registration, recordResources, settle } from "../../support/mocks";

/** A throw-away SSH key: it must never appear in a script. */
export const SSH_KEY = TEST_SSH_KEY;

const ETCD_ENDPOINTS = ["https://10.0.1.11:2379", "https://10.0.1.12:2379", "https://10.0.1.13:2379"];

/** Two machines, binaries from a directory on them, supervisor runner. */
export function hostsConfig(over: Partial<ControlPlaneHostsConfig> = {}): ControlPlaneHostsConfig {
  return {
    machines: [
      { name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY },
      { name: "cp2", address: "10.0.0.6", privateKey: SSH_KEY },
    ],
    binaries: { path: "/opt/karmada/bin" },
    serviceManager: "supervisor",
    ...over,
  };
}

/** Both settings objects, resolved the way the component resolves them (validation included). */
export function resolveBoth(
  config: ControlPlaneConfig = { apiServer: { externalEndpoint: "karmada.example.com" } },
  hosts: ControlPlaneHostsConfig = hostsConfig(),
): { cp: ControlPlaneSettings; hs: ControlPlaneHostsSettings } {
  const adapted = hostsModeControlPlaneConfig(config, hosts);
  validateControlPlaneConfig(adapted);
  const cp = resolveControlPlaneSettings("karmada", adapted, { endpoints: ETCD_ENDPOINTS });
  return { cp, hs: resolveControlPlaneHostsSettings(hosts, cp) };
}

/** EtcdCluster + KarmadaControlPlane (hosts mode) built under recording mocks; no kubernetes provider. */
export async function buildHostsEstate(
  config: Partial<KarmadaControlPlaneArgs> = {},
  hosts: ControlPlaneHostsConfig = hostsConfig(),
): Promise<{ records: Registration[]; controlPlane: KarmadaControlPlane }> {
  const records = recordResources();
  const etcd = new EtcdCluster("etcd", {
    mode: "external",
    external: {
      endpoints: ETCD_ENDPOINTS,
      caCertPem: externalEtcdCredentials().caCertPem,
      clientCertPem: externalEtcdCredentials().clientCertPem,
      clientKeyPem: pulumi.secret(externalEtcdCredentials().clientKeyPem),
    },
  });
  const controlPlane = new KarmadaControlPlane("karmada", {
    mode: "hosts",
    hosts,
    apiServer: { externalEndpoint: "karmada.example.com" },
    crds: FIXTURE_CRD_SOURCE,
    ...config,
    etcd,
  });
  const [objects, controllers] = await Promise.all([
    controlPlane.karmadaObjectsReady,
    controlPlane.controllersReady,
  ]);
  await settle(etcd, controlPlane, ...objects, ...controllers);
  return { records, controlPlane };
}
