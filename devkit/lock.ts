/**
 * A lock between processes on this machine: a directory (mkdir is atomic) holding its holder's pid. Jest
 * workers run suites side by side; what only one of them may use at a time (starting the e2e lab, the
 * local estate's lab) is taken with it. A lock whose holder is gone is taken over.
 */
import * as fs from "fs";
import * as path from "path";
import { isRunning } from "./processes";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the lock `lockDir`, waiting while another live process holds it; resolves to its release. */
export async function acquireLock(lockDir: string): Promise<() => void> {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch {
      const holder = Number(
        fs.readFileSync(path.join(lockDir, "pid"), { encoding: "utf8", flag: "a+" }) || 0,
      );
      if (holder > 0 && !isRunning(holder)) fs.rmSync(lockDir, { recursive: true, force: true });
      await sleep(500);
    }
  }
}

/** Runs `work` holding the lock `lockDir`. */
export async function withLock<T>(lockDir: string, work: () => Promise<T>): Promise<T> {
  const release = await acquireLock(lockDir);
  try {
    return await work();
  } finally {
    release();
  }
}
