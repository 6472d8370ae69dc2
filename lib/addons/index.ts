export * from "./builtins";
export * from "./config";
export * from "./defaults";
export * from "./estimator";
export * from "./manifests";
export * from "./validate";
