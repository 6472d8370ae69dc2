/** Real-engine (Automation API) helpers for the e2e tier. */
export * from "./config";
export * from "./env";
export * from "./crds";
export * from "./labEstate";
export * from "./project";
export * from "./state";
export * from "./steps";
export * from "./tier";
export * from "./workspace";
export * from "./localEstate";
export * from "./languageProject";
export * from "./previousRelease";
export * from "./cli";
export * from "./secrets";
export * from "./failedRun";
