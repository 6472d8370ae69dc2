/** What the offline drill program (offline-estate.ts) reports to test/e2e/offline.test.ts. */

/** Prefix of the line the test reads. */
export const DRILL_LINE = "OFFLINE_DRILL ";

/** What the drill reports. */
export interface OfflineDrillReport {
  /** Network interfaces other than loopback seen from inside the namespace (must be none). */
  readonly interfaces: string[];
  /** Where each binary artifact of the stack config came from, and whether it carries a sha256. */
  readonly artifacts: { readonly name: string; readonly url: string; readonly sha256: boolean }[];
  /** The CRD source of the stack config. */
  readonly crds: unknown;
  readonly upResult: string;
  readonly created: number;
  readonly readyClusters: string[];
  readonly upSeconds: number;
}
