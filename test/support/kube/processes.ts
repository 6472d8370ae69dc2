/** Moved to devkit/processes.ts (the devkit shared by tests, benches and scripts); re-exported while its importers move. */
export * from "../../../devkit/processes";
