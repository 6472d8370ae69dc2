import * as pulumi from "@pulumi/pulumi";
import { kubeconfigOutput } from "../../../lib/kubeconfig/output";
import { renderKubeconfig } from "../../../lib/kubeconfig/render";
import { configError } from "../validation/config-error";

const pem = (kind: string, body: string) => `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----\n`;
const PLAIN = {
  server: "https://10.0.0.1:5443",
  caPem: pem("CERTIFICATE", "ca"),
  certPem: pem("CERTIFICATE", "client"),
  keyPem: pem("RSA PRIVATE KEY", "key"),
  clusterName: "karmada-apiserver",
  userName: "karmada-scheduler",
  contextName: "karmada",
};
const unwrap = <T>(output: pulumi.Output<T>): Promise<T> => new Promise((resolve) => output.apply(resolve));

beforeAll(() =>
  pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }),
);

describe("kubeconfigOutput", () => {
  it("is a secret even when no input is, and renders like renderKubeconfig", async () => {
    const output = kubeconfigOutput(PLAIN);
    expect(await pulumi.isSecret(output)).toBe(true);
    expect(await unwrap(output)).toBe(renderKubeconfig(PLAIN));
  });

  it("builds from Outputs, keeping the key secret", async () => {
    const output = kubeconfigOutput({
      ...PLAIN,
      server: pulumi.output(PLAIN.server),
      certPem: pulumi.output(PLAIN.certPem),
      keyPem: pulumi.secret(PLAIN.keyPem),
    });
    expect(await pulumi.isSecret(output)).toBe(true);
    expect(await unwrap(output)).toBe(renderKubeconfig(PLAIN));
  });

  it("checks names and a plain server right away", () => {
    expect(configError(() => kubeconfigOutput({ ...PLAIN, userName: "" })).field).toBe("userName");
    expect(configError(() => kubeconfigOutput({ ...PLAIN, server: "https://karmada:5443?x" })).field).toBe(
      "server",
    );
  });
});
