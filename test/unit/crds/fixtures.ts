import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Server } from "node:http";
import { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "tar";

/** Our own made-up CRDs (bases/ and patches/), laid out like a release bundle's crds/ directory. */
export const FIXTURE_CRDS = join(__dirname, "../../fixtures/crds");

const created: string[] = [];

/** Hex sha256 of a file's bytes, as a tarball's checksum is given. */
export const fileSha256 = (file: string): string =>
  createHash("sha256").update(readFileSync(file)).digest("hex");

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(prefix = "crds-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Builds a gzipped tarball of `dir`'s `entries`, each stored under `crds/` like a release tarball. */
export async function tarball(
  dir: string,
  entries: string[] = ["bases", "patches"],
  prefix = "crds",
): Promise<string> {
  const file = join(tempDir("crds-tgz-"), "crds.tar.gz");
  await create({ gzip: true, cwd: dir, prefix, portable: true, file }, entries);
  return file;
}

/** Writes files (relative path → text) into a new directory, for broken bundles. */
export function bundleDir(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Copies the fixture bundle to `<new dir>/crds`, as an extracted release tarball looks. */
export function extractedFixture(): string {
  const dir = tempDir();
  cpSync(FIXTURE_CRDS, join(dir, "crds"), { recursive: true });
  return dir;
}

/** A loopback HTTP server with fixed routes; counts requests per path. */
export interface TestServer {
  readonly url: (path: string) => string;
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

export type Route = { status: number; body?: Buffer; location?: string };

export async function serve(routes: Record<string, Route>): Promise<TestServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path] ?? { status: 404 };
    res.writeHead(route.status, route.location ? { location: route.location } : {});
    res.end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
