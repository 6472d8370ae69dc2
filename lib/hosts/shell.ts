import { check, show } from "../validation/errors";
/**
 * Quoting for generated bash. Every value that reaches a script goes through {@link shq} (or is a
 * validated identifier), so a host name or path can never break out of its word.
 */

/** Single-quotes `value` for bash: `it's` → `'it'\''s'`. */
export function shq(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Characters allowed in paths we put on hosts: no spaces, quotes, `$`, backticks or globs. */
export const SAFE_PATH = /^\/[A-Za-z0-9._+@/-]*$/;

/** Validates an absolute host path (no `..`, no shell metacharacters); returns it without trailing `/`. */
export function safePath(value: string, field: string): string {
  check(
    SAFE_PATH.test(value) && !value.includes(".."),
    field,
    `${show(value)} is not a safe absolute path`,
    "/[A-Za-z0-9._+@/-]*",
  );
  return value.replace(/\/+$/, "") || "/";
}

/**
 * Joins a host's filesystem root and an absolute path: `rooted("/", "/etc/x")` → `/etc/x`,
 * `rooted("/tmp/h1", "/etc/x")` → `/tmp/h1/etc/x`. Test beds give each host its own root.
 */
export function rooted(root: string, path: string): string {
  const trimmedRoot = root.replace(/\/+$/, "");
  return `${trimmedRoot}/${path.replace(/^\/+/, "")}`;
}
