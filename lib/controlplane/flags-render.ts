/**
 * Turning named flag values into a command line, shared by every process this library starts (Karmada
 * components in containers or systemd units, etcd members).
 */

/** Generated flags by name (no leading dashes); `undefined` leaves a flag out. */
export type FlagValues = Readonly<Record<string, string | undefined>>;

/**
 * Renders flags as `--name=value`, sorted by name so the output is identical however the inputs were
 * assembled (a reordered command line would roll pods for nothing). `extraArgs` win over generated
 * flags of the same name and add new ones; callers refuse the flags they own first (`checkNotOwned`),
 * so what wins here is a tunable default.
 */
export function renderFlags(
  generated: FlagValues,
  extraArgs: Readonly<Record<string, string>> = {},
): string[] {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(generated)) {
    if (value !== undefined) merged[name] = value;
  }
  Object.assign(merged, extraArgs);
  return Object.keys(merged)
    .sort()
    .map((name) => `--${name}=${merged[name]}`);
}

/** `A=true,B=false`, sorted by gate name; `undefined` when there are no gates (flag left out). */
export function featureGatesValue(gates: Readonly<Record<string, boolean>>): string | undefined {
  const names = Object.keys(gates).sort();
  return names.length === 0 ? undefined : names.map((name) => `${name}=${gates[name]}`).join(",");
}
