import { ConfigError } from "./errors";
import { entryField } from "./labels";

/**
 * Flags a component sets itself because they follow from other settings (TLS files, endpoints, ports,
 * kubeconfigs…): flag name without dashes → the setting that controls it instead. Overriding one in
 * `extraArgs` would silently break what the component wires (or promises, like TLS), so it is refused.
 */
export type OwnedFlags = Readonly<Record<string, string>>;

/** Who sets the flags, and which ones: the subject of the error message. */
export interface FlagOwner {
  /** Subject of the message, e.g. `karmada-apiserver` or `the registration`. */
  readonly name: string;
  readonly flags: OwnedFlags;
}

/**
 * Refuses any entry of `extraArgs` that names a flag `owner` sets; the {@link ConfigError} names the
 * entry (`<field>["<flag>"]`), the flag and the setting to change instead. Other flags pass untouched.
 */
export function checkNotOwned(
  field: string,
  extraArgs: Readonly<Record<string, unknown>>,
  owner: FlagOwner,
): void {
  for (const flag of Object.keys(extraArgs)) {
    // own properties only: a flag named like an Object.prototype member is not owned
    if (!Object.prototype.hasOwnProperty.call(owner.flags, flag)) continue;
    throw new ConfigError(
      entryField(field, flag),
      `--${flag} is set by ${owner.name} from ${owner.flags[flag]}`,
      `any flag ${owner.name} does not set (change the setting above instead)`,
    );
  }
}
