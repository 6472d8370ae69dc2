export * from "./layout";
export * from "./usages";
export * from "./sans";
export * from "./certificates";
export * from "./rotation";
export * from "./issue-args";
export * from "./issue";
export * from "./ca-check";
