/**
 * A Karmada control plane on an existing Kubernetes cluster, written the way an outside project uses
 * the package: `npm install pulumi-karmada`, then compose the components.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { EtcdCluster, KarmadaControlPlane } from "pulumi-karmada";

const config = new pulumi.Config();

// The host cluster: explicit provider, never the ambient default.
const host = new k8s.Provider("host", {
  kubeconfig: config.getSecret("kubeconfig"),
  context: config.get("context"),
  clusterIdentifier: "host",
});

// Three etcd members with TLS on client and peer traffic; data on PVCs that survive `pulumi destroy`.
const etcd = new EtcdCluster(
  "etcd",
  { mode: "inCluster", inCluster: { namespace: "karmada-system", replicas: 3 } },
  { provider: host },
);

const karmada = new KarmadaControlPlane(
  "karmada",
  {
    etcd,
    apiServer: {
      serviceType: "LoadBalancer",
      externalEndpoint: config.get("externalEndpoint") ?? "karmada.example.com:5443",
    },
    components: {
      scheduler: { replicas: 2 },
      descheduler: { enabled: true },
      search: { enabled: true },
      metricsAdapter: { enabled: true },
    },
    crds: config.getObject("crds"),
  },
  { provider: host },
);

// Karmada objects go through the control plane's provider.
new k8s.core.v1.Namespace("demo", { metadata: { name: "demo" } }, { provider: karmada.karmadaProvider });

export const apiEndpoint = karmada.apiEndpoint;
export const kubeconfig = pulumi.secret(karmada.adminKubeconfig);
export const certificateExpiry = karmada.certificateExpiry;
