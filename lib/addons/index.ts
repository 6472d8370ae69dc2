export * from "./builtins";
export * from "./config";
export * from "./estimator";
export * from "./manifests";
