/** An addon's defaults (the rest of a built-in's settings come from the control plane's). */
import { AddonKind, AddonTarget } from "./config";

/** The default target of a kind. */
export function defaultTarget(kind: AddonKind): AddonTarget {
  return kind === "manifests" || kind === "helm" ? "controlPlane" : "host";
}
