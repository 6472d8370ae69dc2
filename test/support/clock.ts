import type { Clock } from "../../lib/kube/rest";

/** A clock that moves only when the code under test sleeps; `slept` is the total, `sleeps` each one. */
export function steppedClock(): Clock & { readonly slept: number; readonly sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    get slept() {
      return sleeps.reduce((a, b) => a + b, 0);
    },
    now() {
      return this.slept;
    },
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
}
