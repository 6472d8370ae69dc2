export * from "./bootstrap";
export * from "./cluster";
export * from "./config";
export * from "./names";
export * from "./pull";
export * from "./push";
export * from "./rbac";
export * from "./validate";
