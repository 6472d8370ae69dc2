/** A member registration's defaults, in one place (resolve.ts applies them). */
import { DEFAULT_LEAF_VALIDITY_HOURS } from "../pki/certificates";

export const MEMBER_DEFAULTS = {
  permissions: "full",
  agentReplicas: 1,
  identity: "direct",
  certValidityHours: DEFAULT_LEAF_VALIDITY_HOURS,
  bootstrapTokenTtlHours: 24,
} as const;
