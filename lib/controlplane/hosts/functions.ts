import { hostPort, ResolvedHost } from "../../hosts/spec";
import { shq } from "../../hosts/shell";
import { ControlPlaneComponent, componentHealth } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { ComponentHostFiles } from "./layout";

/** Bash helpers of the control-plane scripts: a TCP probe and an HTTP(S) probe. */
export const HOST_FUNCTIONS = `pk_port_open() {
  # shellcheck disable=SC2016 # $0/$1 expand in the child bash
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}
pk_probe() {
  curl -fsS --max-time 5 -o /dev/null "$@" 2>/dev/null
}`;

/** Components whose serving certificate comes from the Karmada CA (and names the host). */
const SERVES_KARMADA_CERT: ReadonlySet<ControlPlaneComponent> = new Set<ControlPlaneComponent>([
  "karmada-apiserver",
  "karmada-aggregated-apiserver",
  "karmada-webhook",
  "karmada-search",
  "karmada-metrics-adapter",
]);

/**
 * The readiness probe of a component on its host, as `pk_probe` arguments: HTTPS endpoints serving a
 * Karmada-CA certificate are verified against the CA by the host's address (which proves the SANs);
 * kube-controller-manager's self-signed serving certificate cannot be, so it is not verified.
 */
export function healthProbe(
  component: ControlPlaneComponent,
  cp: ControlPlaneSettings,
  host: ResolvedHost,
  files: ComponentHostFiles,
): { url: string; args: string } {
  const health = componentHealth(component, cp);
  const url = `${health.scheme.toLowerCase()}://${hostPort(host.address, health.port)}${health.readinessPath}`;
  const tls =
    health.scheme === "HTTP"
      ? []
      : SERVES_KARMADA_CERT.has(component)
        ? ["--cacert", `${files.pkiDir}/ca.crt`]
        : ["-k"];
  return { url, args: [...tls, url].map(shq).join(" ") };
}
