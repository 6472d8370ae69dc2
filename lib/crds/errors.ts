/**
 * A CRD bundle that cannot be fetched or read. The message names the source (URL or path) and, where
 * the fix is a setting, which one to change.
 */
export class CrdBundleError extends Error {
  constructor(
    /** URL or path of the bundle. */
    public readonly source: string,
    message: string,
  ) {
    super(message);
    this.name = "CrdBundleError";
  }
}
