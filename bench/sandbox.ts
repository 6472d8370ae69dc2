/**
 * Bench: the local estate of `npm start` with the real engine — wall time of starting its processes, of
 * `up` from nothing (HA etcd on 3 hosts, the control plane in hosts mode on 2 behind a VIP, 3 member
 * registrations), of a `preview` of the unchanged estate, and of `destroy`. Prints one JSON line.
 * Run: npx ts-node --transpile-only bench/sandbox.ts
 * Needs the test bed (scripts/testbed/build.sh) and 127.0.6.0/24 free (no `npm start` estate running).
 */
import { startLocalEstate } from "../test/support/engine/localEstate";

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const result = await run();
  return [result, Number(process.hrtime.bigint() - started) / 1e9];
}

async function main(): Promise<void> {
  const [estate, startSeconds] = await timed(() => startLocalEstate("pk-bench-"));
  try {
    const { stack } = await estate.stack();
    const [up, upSeconds] = await timed(() => stack.up({ color: "never" }));
    const [preview, previewSeconds] = await timed(() =>
      stack.preview({ color: "never", expectNoChanges: true }),
    );
    const [, destroySeconds] = await timed(() => stack.destroy({ color: "never" }));
    const round = (n: number) => Math.round(n * 10) / 10;
    console.log(
      JSON.stringify({
        bench: "sandbox",
        resources: up.summary.resourceChanges?.create ?? 0,
        sandboxStartSeconds: round(startSeconds),
        upSeconds: round(upSeconds),
        previewSeconds: round(previewSeconds),
        previewChanges: Object.keys(preview.changeSummary).filter((op) => op !== "same").length,
        destroySeconds: round(destroySeconds),
      }),
    );
  } finally {
    await estate.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
