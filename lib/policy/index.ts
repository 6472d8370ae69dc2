/** Production rules for estates, as pure functions; the pack in `policy/` runs them in the engine. */
export * from "./catalog";
export * from "./config";
export * from "./subject";
export { imageFrom } from "./imageRules";
