export * from "./etcdCluster";
export * from "./karmadaControlPlane";
export * from "./memberRegistration";
export * from "./addon";
