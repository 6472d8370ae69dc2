"""A Karmada control plane on an existing Kubernetes cluster, from Python.

The same estate as examples/containerized (TypeScript) and examples/yaml: etcd with TLS on client and peer
traffic on PVCs that outlive `pulumi destroy`, the control plane's workloads, certificates, CRDs and
Karmada-side objects, in the upstream install order.
"""

import pulumi
import pulumi_kubernetes as k8s
import pulumi_karmada as karmada

config = pulumi.Config()

# The host cluster: an explicit provider, never the ambient default.
host = k8s.Provider(
    "host",
    kubeconfig=config.require_secret("kubeconfig"),
    context=config.get("context"),
    cluster_identifier="host",
)
on_host = pulumi.ResourceOptions(providers={"kubernetes": host})

namespace = config.get("namespace") or "karmada-system"
# A private registry mirroring every image (offline installs): the control plane's images are rewritten
# by `images.registry`; etcd's image is its own setting.
registry = config.get("imageRegistry")

etcd = karmada.EtcdCluster(
    "etcd",
    mode="inCluster",
    in_cluster={
        "namespace": namespace,
        "replicas": config.get_int("etcdReplicas") or 3,
        "image": config.get("etcdImage"),
    },
    opts=on_host,
)

# Bring your own Karmada CA when the platform has one; otherwise the component generates it.
ca_cert = config.get("karmadaCaCert")
pki = {"karmada_ca": {"cert_pem": ca_cert, "key_pem": config.require_secret("karmadaCaKey")}} if ca_cert else None
# The CRD bundle vendored next to the program (offline installs); the release's bundle otherwise.
crds_path = config.get("crdsPath")

control_plane = karmada.KarmadaControlPlane(
    "karmada",
    etcd=etcd,
    namespace=namespace,
    images={"registry": registry} if registry else None,
    # a cloud load balancer by default; NodePort where the platform has none in front of its nodes
    api_server={
        "service_type": config.get("apiServerServiceType") or "LoadBalancer",
        "node_port": config.get_int("nodePort"),
        "external_endpoint": config.get("externalEndpoint") or "karmada.example.com:5443",
    },
    components={"scheduler": {"replicas": 2}},
    pki=pki,
    crds={"kind": "path", "path": crds_path} if crds_path else None,
    opts=on_host,
)

# Karmada objects go through a provider for karmada-apiserver, from the admin kubeconfig.
karmada_api = k8s.Provider("karmada-api", kubeconfig=control_plane.admin_kubeconfig, cluster_identifier="karmada")
k8s.rbac.v1.ClusterRole(
    "platform-viewer",
    metadata={"name": "platform-viewer"},
    rules=[{"api_groups": ["cluster.karmada.io", "policy.karmada.io", "work.karmada.io"], "resources": ["*"], "verbs": ["get", "list", "watch"]}],
    opts=pulumi.ResourceOptions(provider=karmada_api),
)

pulumi.export("apiEndpoint", control_plane.api_endpoint)
pulumi.export("kubeconfig", control_plane.admin_kubeconfig)
pulumi.export("certificateExpiry", control_plane.certificate_expiry)
