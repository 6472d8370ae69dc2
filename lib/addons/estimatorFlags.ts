/**
 * The flags karmada-scheduler-estimator gets from the addon and its ports: what the addon's settings
 * validation (config.ts) and its manifests (estimator.ts) both read.
 */
import type { OwnedFlags } from "../validation/owned-flags";

/** gRPC port of karmada-scheduler-estimator (the scheduler's default `--scheduler-estimator-port`). */
export const ESTIMATOR_PORT = 10352;
/** Its health port, probed by the kubelet. */
export const ESTIMATOR_HEALTH_PORT = 10351;

/**
 * Flags the estimator owns (see `checkNotOwned`): its member kubeconfig and cluster name, the gRPC port
 * karmada-scheduler dials and its TLS, the probe and metrics ports. `validateAddonConfig` and
 * {@link estimatorManifests} refuse them in `overrides.extraArgs`.
 */
export const ESTIMATOR_OWNED_FLAGS: OwnedFlags = {
  kubeconfig: "members[].kubeconfig (the member's kubeconfig Secret)",
  "cluster-name": "members[].clusterName",
  "server-port": `the fixed gRPC port ${ESTIMATOR_PORT} karmada-scheduler dials`,
  "grpc-auth-cert-file": "the estimator's serving certificate, which the addon issues",
  "grpc-auth-key-file": "the estimator's serving certificate, which the addon issues",
  "metrics-bind-address": "the fixed metrics port 8080 the container declares",
  "health-probe-bind-address": `the fixed health port ${ESTIMATOR_HEALTH_PORT} the liveness probe uses`,
};
