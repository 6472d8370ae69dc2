/**
 * Every diagram this repository keeps, as DOT sources from their inputs: the architecture diagram from
 * the code, the estate's two dependency graphs from the engine's preview. Pure.
 */
import { parsePreviewDigest } from "../../lib/preview/digest";
import { architectureDot } from "./architecture";
import { readEstatePreview, summarizeEstate } from "./estate";
import { EstateSource, estateFullDot, estateSummaryDot } from "./estateDot";
import { SourceFile, moduleGraph } from "./modules";

/** The stack the estate diagrams show: `npm start`'s estate. */
export const ESTATE_SOURCE: EstateSource = { stack: "local", settingsFile: "Pulumi.local.yaml" };

/** What the diagrams are made from. */
export interface DiagramInputs {
  /** The repository's TypeScript files (sources.ts). */
  readonly sources: readonly SourceFile[];
  /** The JSON `pulumi preview --json` printed for the local stack (preview.ts). */
  readonly previewJson: string;
}

/** Diagram name → DOT source, in drawing order: `architecture`, `estate` (summary), `estate-full`. */
export function diagramSources(inputs: DiagramInputs): Map<string, string> {
  const preview = readEstatePreview(parsePreviewDigest(inputs.previewJson));
  return new Map([
    ["architecture", architectureDot(moduleGraph(inputs.sources))],
    ["estate", estateSummaryDot(summarizeEstate(preview), ESTATE_SOURCE)],
    ["estate-full", estateFullDot(preview, ESTATE_SOURCE)],
  ]);
}
