/**
 * TEST BED ONLY: the offline artifact mirror of the local estate — an HTTP server over the mirror's
 * tarballs (devkit/sandbox/mirror.ts), run by devkit/sandbox/bed.ts in the lab's network namespace on
 * its gateway address, where the machines (which have no other network) download from it.
 *
 *   ts-node --transpile-only devkit/sandbox/mirror-server.ts <dir> <address> <port>
 *
 * Stops on SIGTERM, or with the lab.
 */
import { serveDirectory } from "../hosts/fileServer";

async function main(dir: string, address: string, port: number): Promise<void> {
  const mirror = await serveDirectory(dir, address, port);
  console.log(`mirror ${mirror.url} serves ${dir}`);
  process.on("SIGTERM", () => {
    void mirror.close().then(() => process.exit(0));
  });
}

if (require.main === module) {
  const [dir, address, port] = process.argv.slice(2);
  main(dir, address, Number(port)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
