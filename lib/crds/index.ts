export * from "./archive";
export * from "./bundle";
export * from "./download";
export * from "./errors";
export * from "./load";
export * from "./parsedCache";
export * from "./source";
