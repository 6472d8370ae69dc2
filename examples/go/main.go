// A Karmada control plane on an existing Kubernetes cluster, in Go: the same estate as
// examples/containerized (TypeScript), examples/python and examples/yaml. `pulumi install` generates the
// SDK (package karmada) from the plugin's schema into sdks/karmada.
package main

import (
	"github.com/pulumi-karmada/pulumi-karmada/sdk/go/karmada"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	rbacv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/rbac/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")

		// The host cluster: an explicit provider, never the ambient default.
		host, err := kubernetes.NewProvider(ctx, "host", &kubernetes.ProviderArgs{
			Kubeconfig:        cfg.RequireSecret("kubeconfig"),
			Context:           pulumi.StringPtr(cfg.Get("context")),
			ClusterIdentifier: pulumi.StringPtr("host"),
		})
		if err != nil {
			return err
		}
		onHost := pulumi.Providers(host)

		replicas := 3
		if v, err := cfg.TryInt("etcdReplicas"); err == nil {
			replicas = v
		}
		namespace, mode := "karmada-system", karmada.EtcdModeInCluster
		if v := cfg.Get("namespace"); v != "" {
			namespace = v
		}
		inCluster := &karmada.EtcdClusterInClusterArgs{Namespace: &namespace, Replicas: &replicas}
		// A private registry mirroring every image (offline installs): the control plane's images are
		// rewritten by images.registry; etcd's image is its own setting.
		if v := cfg.Get("etcdImage"); v != "" {
			inCluster.Image = &v
		}
		etcd, err := karmada.NewEtcdCluster(ctx, "etcd", &karmada.EtcdClusterArgs{Mode: &mode, InCluster: inCluster}, onHost)
		if err != nil {
			return err
		}

		endpoint := "karmada.example.com:5443"
		if v := cfg.Get("externalEndpoint"); v != "" {
			endpoint = v
		}
		// a cloud load balancer by default; NodePort where the platform has none in front of its nodes
		serviceType := karmada.ApiServerServiceTypeLoadBalancer
		if v := cfg.Get("apiServerServiceType"); v != "" {
			serviceType = karmada.ApiServerServiceType(v)
		}
		apiServer := &karmada.ApiServerExposureConfigArgs{ServiceType: &serviceType, ExternalEndpoint: &endpoint}
		if v, err := cfg.TryInt("nodePort"); err == nil {
			apiServer.NodePort = &v
		}
		args := &karmada.KarmadaControlPlaneArgs{Etcd: etcd, Namespace: &namespace, ApiServer: apiServer}
		if registry := cfg.Get("imageRegistry"); registry != "" {
			args.Images = &karmada.ImageSettingsArgs{Registry: &registry}
		}
		// Bring your own Karmada CA when the platform has one; otherwise the component generates it.
		if caCert := cfg.Get("karmadaCaCert"); caCert != "" {
			args.Pki = &karmada.ControlPlanePkiConfigArgs{
				KarmadaCa: &karmada.CaSourceArgs{
					CertPem: pulumi.String(caCert),
					KeyPem:  cfg.RequireSecret("karmadaCaKey"),
				},
			}
		}
		// The CRD bundle vendored next to the program (offline installs); the release's bundle otherwise.
		if crdsPath := cfg.Get("crdsPath"); crdsPath != "" {
			args.Crds = &karmada.CrdSourceArgs{Kind: karmada.CrdSourceKindPath, Path: &crdsPath}
		}
		controlPlane, err := karmada.NewKarmadaControlPlane(ctx, "karmada", args, onHost)
		if err != nil {
			return err
		}

		// Karmada objects go through a provider for karmada-apiserver, from the admin kubeconfig.
		karmadaAPI, err := kubernetes.NewProvider(ctx, "karmada-api", &kubernetes.ProviderArgs{
			Kubeconfig:        controlPlane.AdminKubeconfig,
			ClusterIdentifier: pulumi.StringPtr("karmada"),
		})
		if err != nil {
			return err
		}
		_, err = rbacv1.NewClusterRole(ctx, "platform-viewer", &rbacv1.ClusterRoleArgs{
			Metadata: &metav1.ObjectMetaArgs{Name: pulumi.String("platform-viewer")},
			Rules: rbacv1.PolicyRuleArray{&rbacv1.PolicyRuleArgs{
				ApiGroups: pulumi.StringArray{pulumi.String("cluster.karmada.io"), pulumi.String("policy.karmada.io"), pulumi.String("work.karmada.io")},
				Resources: pulumi.StringArray{pulumi.String("*")},
				Verbs:     pulumi.StringArray{pulumi.String("get"), pulumi.String("list"), pulumi.String("watch")},
			}},
		}, pulumi.Provider(karmadaAPI))
		if err != nil {
			return err
		}

		ctx.Export("apiEndpoint", controlPlane.ApiEndpoint)
		ctx.Export("kubeconfig", controlPlane.AdminKubeconfig)
		ctx.Export("certificateExpiry", controlPlane.CertificateExpiry)
		return nil
	})
}
