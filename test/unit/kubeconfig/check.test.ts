/**
 * The check of kubeconfig text given as a secret setting (lib/kubeconfig/check.ts): a kubeconfig the
 * Kubernetes provider could use passes; anything else fails naming the field, never showing contents.
 */
import { parse, stringify } from "yaml";
import { validateKubeconfigText } from "../../../lib/kubeconfig/check";

const FIELD = "karmada:memberKubeconfigs.edge-1";
const SECRET_TOKEN = "token-that-must-never-be-shown";

const kubeconfig = (overrides: Record<string, unknown> = {}) =>
  stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: "edge", cluster: { server: "https://10.0.1.1:6443", "certificate-authority-data": "Q0E=" } },
    ],
    users: [{ name: "admin", user: { token: SECRET_TOKEN } }],
    contexts: [{ name: "edge", context: { cluster: "edge", user: "admin" } }],
    "current-context": "edge",
    ...overrides,
  });

const problem = (text: string, context?: string) => {
  try {
    validateKubeconfigText(FIELD, text, context);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

describe("validateKubeconfigText", () => {
  test("a kubeconfig with its current context, or the context asked for, passes", () => {
    expect(problem(kubeconfig())).toBeUndefined();
    expect(problem(kubeconfig({ "current-context": undefined }))).toBeUndefined();
    expect(problem(kubeconfig(), "edge")).toBeUndefined();
    expect(problem(JSON.stringify(parse(kubeconfig())))).toBeUndefined(); // JSON is YAML too
  });

  test.each([
    ["text that is not YAML", "clusters: [unclosed\n  token: " + SECRET_TOKEN, "is not YAML"],
    ["a list", "- a\n- b\n", "is not a kubeconfig"],
    ["a kubeconfig without clusters", kubeconfig({ clusters: [] }), "lists no clusters"],
    [
      "a current-context it does not have",
      kubeconfig({ "current-context": "prod" }),
      'has no context "prod"',
    ],
    [
      "a context naming a cluster it does not list",
      kubeconfig({ contexts: [{ name: "edge", context: { cluster: "gone", user: "admin" } }] }),
      'names cluster "gone", which it does not list',
    ],
    [
      "a cluster without a server",
      kubeconfig({ clusters: [{ name: "edge", cluster: { "certificate-authority-data": "Q0E=" } }] }),
      'cluster "edge" has no server URL',
    ],
    [
      "a context naming a user it does not list",
      kubeconfig({ contexts: [{ name: "edge", context: { cluster: "edge", user: "nobody" } }] }),
      'names user "nobody", which it does not list',
    ],
  ])("%s fails, naming the field", (_, text, expected) => {
    const message = problem(text);
    expect(message).toContain(`invalid ${FIELD}: `);
    expect(message).toContain(expected);
    expect(message).not.toContain(SECRET_TOKEN);
  });

  test("a context asked for (karmada:hostContext) that the kubeconfig lacks is named", () => {
    expect(problem(kubeconfig(), "kind-dev")).toContain('has no context "kind-dev" (allowed: "edge")');
  });
});
