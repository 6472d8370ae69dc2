/** Summaries of `pulumi preview --json` output for code review: per top-level component, in Markdown. */
export * from "./digest";
export * from "./markdown";
export * from "./summary";
export * from "./urn";
export * from "./stateful";
