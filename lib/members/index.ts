export * from "./bootstrap";
export * from "./cluster";
export * from "./config";
export * from "./credentials";
export * from "./names";
export * from "./pull";
export * from "./rbac";
export * from "./validate";
