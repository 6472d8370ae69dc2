/**
 * Keys written into a running etcd and counted in a restored copy of it: what the backup drills check
 * a snapshot against. The writer is a shell script (POSIX builtins and etcdctl only: the etcd image has
 * no coreutils) run where etcd's client certificates are, in a pod or on a machine.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { etcdHealthy, requireBinary, testbedEnv, waitFor } from "../../devkit/kube";
import { startProcess, stopProcessGroup } from "../../devkit/processes";

/** etcd caps a transaction at 128 operations (`--max-txn-ops`); 100 puts per transaction stay under. */
const PUTS_PER_TXN = 100;

/** The key `putKeysScript` writes as number `i` (zero-padded, so a prefix scan sorts them). */
export const keyName = (prefix: string, i: number): string => `${prefix}${String(i).padStart(5, "0")}`;

/** Attempts per transaction: a writer running through membership changes sees leader changes. */
const TXN_ATTEMPTS = 30;

/**
 * A POSIX sh script writing `count` keys `<prefix>00000 …` with values `v0 …` through `etcdctl` (the
 * command with its connection flags), in transactions of 100 puts. A failed transaction is retried (puts
 * are idempotent) up to 30 times, paced by etcdctl's own timeouts. The batch bounds live in shell
 * variables; each transaction's input is printed by a function in its pipeline. With `stopFile` it stops
 * early once that file exists; it ends printing `wrote N keys under <prefix>`.
 */
export function putKeysScript(
  etcdctl: string,
  prefix: string,
  count: number,
  options: { stopFile?: string } = {},
): string {
  if (!/^[A-Za-z0-9/_.-]+$/.test(prefix))
    throw new Error(`key prefix ${JSON.stringify(prefix)}: use [A-Za-z0-9/_.-]`);
  // a writer running beside other steps: it ends early once this file exists
  const more = options.stopFile ? ` && [ ! -e ${JSON.stringify(options.stopFile)} ]` : "";
  return [
    "set -eu",
    "batch() {",
    "  echo",
    "  i=$start",
    '  while [ "$i" -lt "$end" ]; do',
    `    printf 'put ${prefix}%05d v%d\\n' "$i" "$i"`,
    "    i=$((i + 1))",
    "  done",
    "  echo",
    "  echo",
    "}",
    "start=0",
    `while [ "$start" -lt ${count} ]${more}; do`,
    `  end=$((start + ${PUTS_PER_TXN}))`,
    `  if [ "$end" -gt ${count} ]; then end=${count}; fi`,
    "  attempt=1",
    `  until batch | ${etcdctl} txn >/dev/null; do`,
    `    if [ "$attempt" -ge ${TXN_ATTEMPTS} ]; then echo "keys from $start: ${TXN_ATTEMPTS} attempts failed" >&2; exit 1; fi`,
    "    attempt=$((attempt + 1))",
    "  done",
    "  start=$end",
    "done",
    `echo "wrote $start keys under ${prefix}"`,
  ].join("\n");
}

/**
 * Keys under `prefix` in the etcd at `endpoint`, by `etcdctl get --count-only`; `env` adds connection
 * settings (`ETCDCTL_CACERT`… for https). `serializable`: this member's own copy, not the leader's.
 */
export function keyCount(
  endpoint: string,
  prefix: string,
  options: { env?: Record<string, string>; serializable?: boolean } = {},
): number {
  const out = execFileSync(
    requireBinary("etcdctl"),
    [
      `--endpoints=${endpoint}`,
      "get",
      prefix,
      "--prefix",
      "--count-only",
      "-w",
      "fields",
      ...(options.serializable ? ["--consistency=s"] : []),
    ],
    { encoding: "utf8", env: { ...testbedEnv().env, ...options.env } },
  );
  const count = /"Count" : (\d+)/.exec(out)?.[1];
  if (count === undefined) throw new Error(`etcdctl printed no count:\n${out}`);
  return Number(count);
}

/**
 * Restores `snapshot` (an `etcdctl snapshot save` file) with `etcdutl snapshot restore` into a new data
 * directory, starts a NEW single-member etcd on it at `address` (a loopback address: client 2379, peer
 * 2380, plain http), counts the keys under `prefix`, and stops and removes it again.
 */
export async function restoredKeyCount(snapshot: string, prefix: string, address: string): Promise<number> {
  const env = testbedEnv().env;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-restore-"));
  const dataDir = path.join(dir, "data");
  const peer = `http://${address}:2380`;
  const client = `http://${address}:2379`;
  try {
    execFileSync(
      requireBinary("etcdutl"),
      [
        "snapshot",
        "restore",
        snapshot,
        `--data-dir=${dataDir}`,
        "--name=restored",
        `--initial-cluster=restored=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
      ],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    const etcd = startProcess(
      path.join(dir, "run"),
      "etcd",
      requireBinary("etcd"),
      [
        "--name=restored",
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
      ],
      env,
    );
    try {
      await waitFor("the restored etcd healthy", () => etcdHealthy(client), 60_000, 500);
      return keyCount(client, prefix);
    } finally {
      await stopProcessGroup(etcd.pid);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
