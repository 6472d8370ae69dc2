import * as pulumi from "@pulumi/pulumi";
import { resolveMemberSettings } from "../../lib/members/resolve";
import { MemberSettings } from "../../lib/members/settings";
import { validateMemberConfig } from "../../lib/members/validate";
import { ConfigError, ErrorCollector, show } from "../../lib/validation/errors";
import { KarmadaControlPlane } from "../karmadaControlPlane";
import type { MemberRegistrationArgs } from "./args";
import { providerFromOptions, requireComponent } from "../providers";
import { clusterNameOwner, credentialsNamespaceOwner, CredentialsPlace } from "./context";

/** What a registration is built from, known before it registers anything. */
export interface MemberPlan {
  readonly controlPlane: KarmadaControlPlane;
  /** The member cluster's provider. */
  readonly member: pulumi.ProviderResource;
  readonly settings: MemberSettings;
  /** Where its member-side credentials live; absent when it creates none (pull, reportSecrets off). */
  readonly credentials?: CredentialsPlace;
  /** `caBundle` (push mode), when given; else the `ca.crt` the member's token controller puts into the token Secret. */
  readonly caBundle?: pulumi.Input<string>;
  /** `protect`, when given (else the component's options decide). */
  readonly protect?: boolean;
}

/**
 * Validation of a member registration before it registers anything: its own settings, the control
 * plane it names (a KarmadaControlPlane of this program, offering what the registration needs), the
 * member's provider, and the cluster name not yet taken at that control plane — all problems together.
 */
export function planMember(
  name: string,
  args: MemberRegistrationArgs,
  opts: pulumi.ComponentResourceOptions,
): MemberPlan {
  if (typeof args !== "object" || args === null)
    throw new ConfigError("args", `${show(args)} is not an object`);
  const errors = new ErrorCollector();
  const controlPlane = errors.attempt(() =>
    requireComponent("controlPlane", args.controlPlane, KarmadaControlPlane, "KarmadaControlPlane"),
  );
  errors.attempt(() => validateMemberConfig(args));
  if (args.caBundle !== undefined && args.mode === "Pull") {
    errors.add(
      new ConfigError(
        "caBundle",
        "only applies to push mode (the agent uses its in-cluster CA)",
        'mode: "Push"',
      ),
    );
  }
  const member = errors.attempt(() => memberProvider(opts, controlPlane));
  if (controlPlane) {
    if (args.mode === "Pull" && args.pull?.identity === "bootstrapToken" && !controlPlane.pullModeBootstrap) {
      errors.add(
        new ConfigError(
          "pull.identity",
          `"bootstrapToken" needs the control plane's bootstrap objects, but ${show(controlPlane.name)} has pullModeBootstrap: false`,
          'identity "direct", or pullModeBootstrap: true on the control plane',
        ),
      );
    }
    const owner = clusterNameOwner(controlPlane, args.clusterName);
    if (owner !== undefined) {
      errors.add(
        new ConfigError(
          "clusterName",
          `${show(args.clusterName)} is already registered with ${show(controlPlane.name)} by ${show(owner)}`,
          "a cluster name not yet registered with this control plane",
        ),
      );
    }
  }
  // resolved only from valid settings: the defaults assume validation passed
  const settings = errors.errors.length === 0 ? resolveMemberSettings(args) : undefined;
  const credentials =
    controlPlane && member && settings && createsMemberCredentials(settings)
      ? {
          controlPlane,
          member,
          apiEndpoint: settings.apiEndpoint,
          namespace: settings.credentialsNamespace,
        }
      : undefined;
  const sharing = credentials && credentialsNamespaceOwner(credentials);
  if (sharing !== undefined) {
    errors.add(
      new ConfigError(
        "credentialsNamespace",
        `${show(credentials!.namespace)} of member ${show(credentials!.apiEndpoint)} already holds the credentials of ${show(sharing)}; two registrations on one member API server would share its impersonator account`,
        `a namespace of its own on that server, e.g. ${show(`karmada-cluster-${args.clusterName}`)} (push mode)`,
      ),
    );
  }
  errors.throwIfAny(`MemberRegistration ${show(name)}`);
  return {
    controlPlane: controlPlane!,
    member: member!,
    settings: settings!,
    credentials,
    caBundle: args.caBundle,
    protect: args.protect,
  };
}

/** Whether a registration creates credentials in the member: push always, pull when the agent reports them. */
const createsMemberCredentials = (settings: MemberSettings) =>
  settings.mode === "Push" || settings.pull?.reportSecrets === true;

/**
 * The member's kubernetes provider from the resource options. Never the ambient default, never the
 * Karmada provider (member objects inside karmada-apiserver would "register" Karmada with itself).
 */
function memberProvider(
  opts: pulumi.ComponentResourceOptions,
  controlPlane: KarmadaControlPlane | undefined,
): pulumi.ProviderResource {
  const provider = providerFromOptions(opts, "kubernetes");
  if (!provider) {
    throw new ConfigError(
      "opts.provider",
      "MemberRegistration needs the member cluster's kubernetes provider in its resource options",
      "{ provider: memberProvider } or { providers: { kubernetes: memberProvider } }",
    );
  }
  if (controlPlane && provider === controlPlane.karmadaProvider) {
    throw new ConfigError(
      "opts.provider",
      "is the Karmada provider, not a member cluster's",
      "the member cluster's provider",
    );
  }
  return provider;
}
