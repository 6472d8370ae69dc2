/** Loopback Kubernetes API "clusters" (etcd + kube-apiserver + kube-controller-manager processes) for the e2e tier. */
export * from "../testbed";
export * from "../kubeClient";
export * from "./cluster";
export * from "./options";
export * from "../pki";
export * from "../processes";
export * from "./objects";
export * from "./dryRun";
