/**
 * Stand-in etcd binaries for running a member script for real without an etcd cluster: an `etcd` that
 * only listens on the peer port until killed, an `etcdctl` that reaches no cluster, and (when asked) an
 * `etcdutl` whose snapshot is any file starting with "SNAPSHOT" and whose restore leaves a
 * `member/wal` dir and the snapshot's text in `member/restored-from` (so a test can tell what a data dir
 * came from). Real etcd runs in test/e2e.
 */
import * as fs from "fs";
import * as path from "path";

/**
 * Writes the stand-ins into `<root>/usr/local/bin` (the default binDir). With `ignoreTerm` the `etcd`
 * ignores SIGTERM, as a leader busy handing over its leadership does: only a KILL stops it.
 */
export function installStandInEtcd(
  root: string,
  address: string,
  peerPort: number,
  ignoreTerm = false,
): void {
  const bin = path.join(root, "usr/local/bin");
  fs.mkdirSync(bin, { recursive: true });
  const node = `#!${process.execPath}\n`;
  fs.writeFileSync(
    path.join(bin, "etcd"),
    `${node}${ignoreTerm ? 'process.on("SIGTERM", () => {});\n' : ""}require("net").createServer().listen(${peerPort}, "${address}");\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(bin, "etcdctl"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
  const etcdutl = `${node}const fs = require("fs");
const [verb, action, file, ...rest] = process.argv.slice(2);
const text = fs.readFileSync(file, "utf8");
if (verb !== "snapshot" || !text.startsWith("SNAPSHOT")) process.exit(2);
if (action === "restore") {
  const dir = rest[rest.indexOf("--data-dir") + 1];
  fs.mkdirSync(dir + "/member/wal", { recursive: true });
  fs.writeFileSync(dir + "/member/restored-from", text);
}
`;
  fs.writeFileSync(path.join(bin, "etcdutl"), etcdutl, { mode: 0o755 });
}
