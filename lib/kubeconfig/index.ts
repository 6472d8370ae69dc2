export * from "./render";
export * from "./output";
