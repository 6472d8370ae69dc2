/** The command line of a sandbox script: `up [--preview] | down`. */

/** Runs `up` or `down` as `argv` asks; prints a failure as `[label] message` and exits 1. */
export function runSandboxCommand(
  label: string,
  argv: readonly string[],
  up: (preview: boolean) => Promise<void>,
  down: () => Promise<void>,
): void {
  const [command, ...flags] = argv;
  const run =
    command === "up" && flags.every((f) => f === "--preview")
      ? up(flags.includes("--preview"))
      : command === "down" && flags.length === 0
        ? down()
        : Promise.reject(new Error(`usage: ${label} up [--preview] | down`));
  run.catch((e) => {
    console.error(`[${label}] ${(e as Error).message}`);
    process.exit(1);
  });
}
