export * from "./etcdCluster";
export * from "./karmadaControlPlane";
