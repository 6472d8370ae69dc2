/** Hosts mode's own rules on what the control plane's settings carry. */
import { check, show } from "../../validation/errors";
import { entryField } from "../../validation/labels";
import { checkNotOwned } from "../../validation/owned-flags";
import { componentKeyOf } from "../config";
import { ControlPlaneComponent } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { hostsOwnedFlags } from "./flags";

/** Characters a flag may hold on a host: systemd and the supervisor pass it verbatim, unquoted. */
const VERBATIM_FLAG = /^--[A-Za-z0-9._+@/=:,-]+$/;

/** Hosts-mode rules on `extraArgs`: no flag hosts mode owns, nothing that needs shell quoting. */
export function checkExtraArgs(
  settings: ControlPlaneSettings,
  components: readonly ControlPlaneComponent[],
): void {
  for (const component of components) {
    const field = `components.${componentKeyOf(component)}.extraArgs`;
    checkNotOwned(field, settings.components[component].extraArgs, {
      name: "the control plane in hosts mode",
      flags: hostsOwnedFlags(component),
    });
    for (const [name, value] of Object.entries(settings.components[component].extraArgs)) {
      check(
        VERBATIM_FLAG.test(`--${name}=${value}`),
        entryField(field, name),
        `${show(value)} needs shell quoting, which hosts mode does not do`,
        "letters, digits and . _ + @ / = : , -",
      );
    }
  }
}
