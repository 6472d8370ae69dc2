/**
 * A throw-away PostgreSQL server on loopback, the self-managed state backend of a team's stacks
 * (`pulumi login postgres://…`, docs/teams.md): Debian's server binaries, a cluster in its own temporary
 * directory owned by the `postgres` user (the server refuses to run as root), password authentication
 * only, a role and a database for the state. Stopping it removes the directory.
 */
import { execFileSync } from "child_process";
import { randomBytes } from "crypto";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";

/** Where Debian's `postgresql-<major>` packages put the server binaries. */
const DEBIAN_POSTGRES_ROOT = "/usr/lib/postgresql";
/** The system account the Debian packages create; the server and its files run as it. */
const POSTGRES_ACCOUNT = "postgres";

/** A running server, its state database and how the engine logs in to it. */
export interface PostgresServer {
  /** `postgres://pulumi@127.0.0.1:<port>/pulumi_state?sslmode=disable`: no password in it, see {@link password} */
  readonly url: string;
  /** The state role's password, for `PGPASSWORD` (the engine's PostgreSQL driver reads it). */
  readonly password: string;
  readonly port: number;
  /** The server's own directory (data, socket, log). */
  readonly dir: string;
  /** Rows of `sql` run in the state database as the state role, one string per row (`psql -At`). */
  query(sql: string): string[];
  /** Stops the server (fast shutdown) and removes its directory. Safe to call twice. */
  stop(): void;
}

/** The server binaries of the newest installed major version; throws naming the package when none is. */
function postgresBinDir(root = DEBIAN_POSTGRES_ROOT): string {
  const majors = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(root, v, "bin", "postgres")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) {
    throw new Error(`no PostgreSQL server under ${root} (apt-get install postgresql; scripts/setup.sh does)`);
  }
  return path.join(root, majors[0], "bin");
}

/** A loopback TCP port nothing listens on now. */
async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `binary args…` as the postgres account. */
function asPostgres(binary: string, args: readonly string[]): string {
  return execFileSync("runuser", ["-u", POSTGRES_ACCOUNT, "--", binary, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The state database and its owner: what a team's backend URL names. */
const STATE_DATABASE = "pulumi_state";
const STATE_ROLE = "pulumi";

/**
 * Starts a server listening on 127.0.0.1 only, with a role {@link STATE_ROLE} (random password) owning the
 * database {@link STATE_DATABASE}. Password authentication everywhere, for the superuser too.
 */
export async function startPostgres(prefix = "pk-postgres-"): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const { uid, gid } = accountIds();
  fs.chownSync(dir, uid, gid);
  const data = path.join(dir, "data");
  const superPassword = randomPassword();
  const password = randomPassword();
  const pwfile = path.join(dir, "superuser-password");
  fs.writeFileSync(pwfile, superPassword, { mode: 0o600 });
  fs.chownSync(pwfile, uid, gid);
  const port = await freeLoopbackPort();
  const logFile = path.join(dir, "server.log");
  const stop = () => {
    if (!fs.existsSync(dir)) return;
    try {
      asPostgres(path.join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"]);
    } catch {
      // not running (never started, or already stopped): nothing to stop
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    asPostgres(path.join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      POSTGRES_ACCOUNT,
      "--auth=scram-sha-256",
      `--pwfile=${pwfile}`,
      "--no-instructions",
    ]);
    fs.rmSync(pwfile);
    asPostgres(path.join(bin, "pg_ctl"), [
      "-D",
      data,
      "-l",
      logFile,
      "-w",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`,
      "start",
    ]);
    const asSuperuser = (sql: string) =>
      psql(bin, port, { role: POSTGRES_ACCOUNT, password: superPassword, database: "postgres" }, sql);
    asSuperuser(`CREATE ROLE ${STATE_ROLE} LOGIN PASSWORD '${password}'`);
    asSuperuser(`CREATE DATABASE ${STATE_DATABASE} OWNER ${STATE_ROLE}`);
  } catch (e) {
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-2000) : "(no log)";
    stop();
    throw new Error(`PostgreSQL did not start: ${(e as Error).message}\n${log}`);
  }
  const query = (sql: string) =>
    psql(bin, port, { role: STATE_ROLE, password, database: STATE_DATABASE }, sql)
      .split("\n")
      .filter((row) => row !== "");
  return {
    url: `postgres://${STATE_ROLE}@127.0.0.1:${port}/${STATE_DATABASE}?sslmode=disable`,
    password,
    port,
    dir,
    query,
    stop,
  };
}

/** Who `psql` logs in as, and where. */
interface PsqlLogin {
  readonly role: string;
  readonly password: string;
  readonly database: string;
}

/** Output of `sql` (unaligned, tuples only) run over loopback TCP with password authentication. */
function psql(bin: string, port: number, login: PsqlLogin, sql: string): string {
  return execFileSync(
    path.join(bin, "psql"),
    [
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      login.role,
      "-d",
      login.database,
      "-v",
      "ON_ERROR_STOP=1",
      "-At",
      "-f",
      "-",
    ],
    {
      encoding: "utf8",
      env: { ...process.env, PGPASSWORD: login.password },
      // on stdin, not the command line: a failure's message quotes the command line, and SQL may hold a password
      input: sql,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
}

/** uid and gid of the postgres account. */
function accountIds(): { uid: number; gid: number } {
  const line = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${POSTGRES_ACCOUNT}:`));
  if (!line) throw new Error(`no ${POSTGRES_ACCOUNT} account (apt-get install postgresql creates it)`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** Letters and digits only: it goes into a URL and an SQL literal unquoted. */
function randomPassword(): string {
  return randomBytes(18).toString("hex");
}
