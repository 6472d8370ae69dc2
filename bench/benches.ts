/** Every benchmark `npm run bench` runs, in order (cheap ones first), with what it measures. */
export const BENCHES: readonly { readonly file: string; readonly what: string }[] = [
  {
    file: "graph.ts",
    what: "graph construction under mocks: one control plane + N push members vs bare Pulumi",
  },
  {
    file: "etcd-hosts.ts",
    what: "etcd on hosts through `pulumi up`: bring-up, snapshot + restore, 3 → 5 vs plain scripts",
  },
  {
    file: "push-members.ts",
    what: "10 push members in one `up` vs one (real engine, loopback API servers)",
  },
  {
    file: "hundred-members.ts",
    what: "100 push clusters on 3 member API servers in one `up` of the local estate, Ready under Karmada's controllers",
  },
  {
    file: "binary-estate.ts",
    what: "the local binary estate with the real engine: up, no-change up, preview, upgrade, destroy",
  },
];
