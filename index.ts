export * from "./components";
export * as catalog from "./lib/catalog";
export { ConfigError } from "./lib/validation/errors";
