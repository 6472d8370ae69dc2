/**
 * A kubeconfig the program's check accepts (lib/kubeconfig/check.ts) for tests that never reach its
 * cluster: one cluster, one user, the current context naming both; `name` is every entry's name.
 */
export function testKubeconfig(name: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{ name: ${name}, cluster: { server: "https://${name}.example:6443" } }]`,
    `users: [{ name: ${name}, user: { token: test-token } }]`,
    `contexts: [{ name: ${name}, context: { cluster: ${name}, user: ${name} } }]`,
    `current-context: ${name}`,
    "",
  ].join("\n");
}
