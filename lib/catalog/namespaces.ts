/**
 * The namespace upstream installs Karmada into (karmadactl init, the operator, the Helm chart): on the
 * host cluster, inside karmada-apiserver and for karmada-agent in a pull member. Every namespace setting
 * here defaults to it, so that upstream runbooks and tools find the objects where they look.
 */
export const KARMADA_SYSTEM_NAMESPACE = "karmada-system";
