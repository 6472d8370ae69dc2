/**
 * TEST BED ONLY: the sandbox's stand-ins for what a data centre provides, as one long-lived process so
 * they outlive `npm start`: the VIP in front of the control-plane hosts (scripts/sandbox/vip.ts) and the
 * offline artifact mirror (an HTTP server over the mirror's tarballs).
 *
 *   ts-node --transpile-only scripts/sandbox/network.ts <network.json>
 *
 * Started (and its pid recorded) by scripts/sandbox/bed.ts; stops on SIGTERM.
 */
import * as fs from "fs";
import { serveDirectory } from "../../test/support/hosts/fileServer";
import { ForwardedPort, startTcpVip } from "./vip";

/** What the daemon serves (written by scripts/sandbox/bed.ts). */
export interface NetworkSettings {
  readonly vip: {
    readonly address: string;
    readonly backends: readonly string[];
    readonly ports: readonly ForwardedPort[];
  };
  readonly mirror: { readonly address: string; readonly port: number; readonly dir: string };
}

async function main(settingsFile: string): Promise<void> {
  const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8")) as NetworkSettings;
  const vip = await startTcpVip(settings.vip.address, settings.vip.backends, settings.vip.ports);
  const mirror = await serveDirectory(settings.mirror.dir, settings.mirror.address, settings.mirror.port);
  console.log(`VIP ${settings.vip.address} → ${settings.vip.backends.join(", ")}; mirror ${mirror.url}`);
  process.on("SIGTERM", () => {
    void Promise.all([vip.close(), mirror.close()]).then(() => process.exit(0));
  });
}

if (require.main === module) {
  main(process.argv[2]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
