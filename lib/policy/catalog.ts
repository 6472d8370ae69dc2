/**
 * The pack's rules, their names (public: stack policy configs name them) and default enforcement. Each
 * is a stack-level check over every resource, so counts (members per etcd, a backup per etcd) and
 * per-resource checks read the same way.
 */
import { EnforcementLevel, PolicyParameters } from "./config";
import { leafRemaining, leafValidity } from "./certificateRules";
import { etcdBackups, etcdMemberCount, etcdPersistentStorage } from "./etcdRules";
import { hostKeysPinned } from "./hostRules";
import { imagesFromAllowedRegistries } from "./imageRules";
import { statefulProtected } from "./protectionRules";
import { PolicySubject, PolicyViolation } from "./subject";

/** One rule of the pack. */
export interface PolicyRule {
  /** The rule's name in the pack and in per-stack config. */
  readonly name: string;
  readonly description: string;
  /** Level when the stack's config does not set one. */
  readonly enforcementLevel: EnforcementLevel;
  /** The parameters the rule reads, settable in its entry of the stack's policy config. */
  readonly parameters: readonly (keyof PolicyParameters)[];
  /** The findings for the stack's resources; `now` in milliseconds since the epoch. */
  check(resources: readonly PolicySubject[], params: PolicyParameters, now: number): PolicyViolation[];
}

export const POLICY_PACK_NAME = "pulumi-karmada";

export const POLICY_RULES: readonly PolicyRule[] = [
  {
    name: "etcd-members",
    parameters: ["minEtcdMembers"],
    description: "etcd runs at least minEtcdMembers members (3 by default), so a majority survives one loss.",
    enforcementLevel: "mandatory",
    check: etcdMemberCount,
  },
  {
    name: "etcd-persistent-storage",
    parameters: [],
    description: "In-cluster etcd keeps its data on a PersistentVolumeClaim or hostPath, never emptyDir.",
    enforcementLevel: "mandatory",
    check: (resources) => etcdPersistentStorage(resources),
  },
  {
    name: "etcd-backups",
    parameters: [],
    description: "Every etcd the estate runs has scheduled, verified backups.",
    enforcementLevel: "mandatory",
    check: (resources) => etcdBackups(resources),
  },
  {
    name: "leaf-certificate-validity",
    parameters: ["maxLeafValidityHours"],
    description: "Leaf certificates are issued for at most maxLeafValidityHours (one year by default).",
    enforcementLevel: "mandatory",
    check: leafValidity,
  },
  {
    name: "leaf-certificate-renewal",
    parameters: ["minLeafRemainingHours"],
    description:
      "Every leaf certificate has at least minLeafRemainingHours left (30 days by default): renewal runs.",
    enforcementLevel: "mandatory",
    check: leafRemaining,
  },
  {
    name: "host-keys-pinned",
    parameters: [],
    description: "Every SSH connection (hosts and jump hosts) pins the host's key.",
    enforcementLevel: "mandatory",
    check: (resources) => hostKeysPinned(resources),
  },
  {
    name: "images-from-allowed-registries",
    parameters: ["allowedRegistries"],
    description: "Every container image comes from one of allowedRegistries (unchecked while it is empty).",
    enforcementLevel: "mandatory",
    check: imagesFromAllowedRegistries,
  },
  {
    name: "stateful-protected",
    parameters: [],
    description:
      "CAs, the service-account key, etcd members and data, namespaces, CRDs and registrations are protected.",
    enforcementLevel: "advisory",
    check: (resources) => statefulProtected(resources),
  },
];
