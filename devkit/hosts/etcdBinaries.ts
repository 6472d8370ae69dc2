import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The real etcd the test bed runs. */
export interface EtcdBinaries {
  /** Directory with `etcd`, `etcdctl` and (3.5+) `etcdutl`. */
  readonly dir: string;
  /** As etcd reports it, with a leading `v`, e.g. `v3.5.21`. */
  readonly version: string;
  /** Where it came from, printed in test output. */
  readonly origin: string;
  readonly hasEtcdutl: boolean;
}

function versionOf(dir: string): string {
  const out = execFileSync(path.join(dir, "etcd"), ["--version"], { encoding: "utf8" });
  const match = /etcd Version: (\S+)/.exec(out);
  if (!match) throw new Error(`cannot read the version of ${dir}/etcd`);
  return `v${match[1]}`;
}

function describe(dir: string, origin: string): EtcdBinaries {
  return { dir, version: versionOf(dir), origin, hasEtcdutl: fs.existsSync(path.join(dir, "etcdutl")) };
}

/** Cache dirs `etcd-v3.5.*` built by scripts/testbed (newest first). */
function cachedBuilds(): string[] {
  const cache = process.env.PULUMI_KARMADA_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-karmada");
  const testbed = path.join(cache, "testbed");
  if (!fs.existsSync(testbed)) return [];
  return fs
    .readdirSync(testbed)
    .filter((d) => /^etcd-v3\.5\./.test(d))
    .sort()
    .reverse()
    .map((d) => path.join(testbed, d, "bin"))
    .filter((d) => fs.existsSync(path.join(d, "etcd")) && fs.existsSync(path.join(d, "etcdctl")));
}

/**
 * etcd 3.5 from TESTBED_ETCD_BIN or the test-bed cache; else Debian's etcd-server/etcd-client (3.4,
 * installed with apt-get when missing). TESTBED_ETCD_FLAVOR=debian forces the Debian build.
 */
export function findEtcd(): EtcdBinaries {
  const forced = process.env.TESTBED_ETCD_FLAVOR;
  if (forced !== "debian") {
    const fromEnv = process.env.TESTBED_ETCD_BIN;
    if (fromEnv) return describe(fromEnv, `TESTBED_ETCD_BIN=${fromEnv}`);
    const [cached] = cachedBuilds();
    if (cached) return describe(cached, `test-bed cache ${cached}`);
  }
  if (!fs.existsSync("/usr/bin/etcd") || !fs.existsSync("/usr/bin/etcdctl")) {
    execFileSync("apt-get", ["install", "-y", "-qq", "etcd-server", "etcd-client"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  // Debian's binaries live in /usr/bin beside everything else; copy the two we need into a clean dir.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-debian-etcd-"));
  for (const b of ["etcd", "etcdctl"]) fs.copyFileSync(`/usr/bin/${b}`, path.join(dir, b));
  for (const b of ["etcd", "etcdctl"]) fs.chmodSync(path.join(dir, b), 0o755);
  return describe(dir, "Debian etcd-server/etcd-client");
}
