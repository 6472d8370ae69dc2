/**
 * Checks of etcd-on-hosts settings, each a pure function throwing a ConfigError that names the field
 * (./resolve.ts runs them while applying the defaults, all problems reported together).
 */
import { SERVICE_MANAGERS } from "../../hosts/service";
import { safePath } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { check, show } from "../../validation/errors";
import { MEMBER_COUNTS } from "./config";

/** System directories many programs share: the member and backup scripts make their directory 0700. */
const SHARED_DIRS = new Set([
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/usr/bin",
  "/usr/lib",
  "/usr/local",
  "/usr/local/bin",
  "/usr/local/lib",
  "/usr/sbin",
  "/var",
  "/var/backups",
  "/var/cache",
  "/var/lib",
  "/var/log",
  "/var/tmp",
]);

/** A directory the scripts own (made 0700, owned by the service user): never a shared system one. */
export function privateDir(value: string, field: string): string {
  const path = safePath(value, field);
  check(
    !SHARED_DIRS.has(path),
    field,
    `${show(path)} is a shared system directory; it would be made private (0700)`,
    `a directory of its own, e.g. ${path === "/" ? "" : path}/etcd`,
  );
  return path;
}

export function port(value: number, field: string): number {
  check(
    Number.isInteger(value) && value >= 1 && value <= 65535,
    field,
    `port ${show(value)} out of range`,
    "1-65535",
  );
  return value;
}

/** The member count keeps a majority through failures (odd, at most 7). */
export function validateMemberCount(field: string, members: readonly ResolvedHost[]): void {
  check(
    MEMBER_COUNTS.includes(members.length),
    field,
    `${members.length} members cannot keep a majority through failures`,
    MEMBER_COUNTS.join(", "),
  );
}

/** An etcd 3 release name, `v3.X.Y`. */
export function validateEtcdVersion(field: string, version: unknown): void {
  check(
    typeof version === "string" && /^v3\.\d+\.\d+$/.test(version),
    field,
    `${show(version)} is not an etcd 3 release`,
    "v3.X.Y",
  );
}

/** One of the service managers the host scripts know. */
export function validateServiceManager(field: string, serviceManager: unknown): void {
  check(
    (SERVICE_MANAGERS as readonly unknown[]).includes(serviceManager),
    field,
    `${show(serviceManager)} is not a service manager`,
    SERVICE_MANAGERS.join(", "),
  );
}

/** Under systemd a member's host root must be "/": systemd only sees units there. */
export function validateSystemdRoot(field: string, root: string): void {
  check(
    root === "/",
    field,
    `systemd only sees units under "/", not ${show(root)}`,
    '"/" or serviceManager "supervisor"',
  );
}

/** A positive integer. */
export function validatePositiveInteger(field: string, value: number): void {
  check(Number.isInteger(value) && value > 0, field, `${show(value)} must be a positive integer`);
}

/** A non-negative integer (a counter starting at 0). */
export function validateCounter(field: string, value: number): void {
  check(Number.isInteger(value) && value >= 0, field, `${show(value)} must be a non-negative integer`);
}

/** A boolean. */
export function validateBoolean(field: string, value: unknown): void {
  check(typeof value === "boolean", field, `${show(value)} is not a boolean`, "true, false");
}

/** The backup host is one of the members. */
export function validateBackupHost(field: string, host: string, members: readonly ResolvedHost[]): void {
  check(
    members.some((m) => m.name === host),
    field,
    `${show(host)} is not one of the hosts`,
    members.map((m) => m.name).join(", "),
  );
}

/** Snapshots kept: 1–1000. */
export function validateRetain(field: string, retain: number): void {
  check(
    Number.isInteger(retain) && retain >= 1 && retain <= 1000,
    field,
    `${show(retain)} out of range`,
    "1-1000",
  );
}
