export * from "./render";
export * from "./output";
export * from "./access";
