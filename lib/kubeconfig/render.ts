import { stringify } from "yaml";
import { ConfigError, show } from "../validation/errors";
import { validateHttpsUrl } from "../validation/urls";

/** Everything a single-cluster, single-user kubeconfig with client-certificate auth holds. */
export interface KubeconfigParams {
  /** API server URL, `https://host[:port]`. */
  readonly server: string;
  /** PEM of the CA that signed the server's certificate. */
  readonly caPem: string;
  /** PEM of the client certificate. */
  readonly certPem: string;
  /** PEM of the client's private key. */
  readonly keyPem: string;
  /** Name of the cluster entry. */
  readonly clusterName: string;
  /** Name of the user entry. */
  readonly userName: string;
  /** Name of the only context, which is also the current one. */
  readonly contextName: string;
}

const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

function requirePem(field: string, pem: string, label: RegExp): string {
  // Only the header is shown on error: the body may be a private key.
  if (typeof pem !== "string" || !label.test(pem)) {
    const header = typeof pem === "string" ? pem.split("\n", 1)[0].slice(0, 40) : show(pem);
    throw new ConfigError(
      field,
      `does not hold a PEM block of the right type (starts with ${show(header)})`,
      "PEM text",
    );
  }
  return pem;
}

function requireName(field: string, value: string): string {
  if (typeof value !== "string" || value.trim() === "" || value !== value.trim()) {
    throw new ConfigError(
      field,
      `${show(value)} is not a usable name`,
      "a non-empty string without surrounding blanks",
    );
  }
  return value;
}

/** Validates the cluster, user and context names of a kubeconfig; returns them. */
export function validateKubeconfigNames<
  T extends Pick<KubeconfigParams, "clusterName" | "userName" | "contextName">,
>(names: T): Pick<KubeconfigParams, "clusterName" | "userName" | "contextName"> {
  return {
    clusterName: requireName("clusterName", names.clusterName),
    userName: requireName("userName", names.userName),
    contextName: requireName("contextName", names.contextName),
  };
}

/**
 * Renders a kubeconfig (YAML) whose only context points at `server` as the given user. Certificates and
 * key are embedded (`*-data`, base64), so the file is self-contained — and a secret.
 */
export function renderKubeconfig(params: KubeconfigParams): string {
  validateHttpsUrl("server", params.server);
  const { clusterName, userName, contextName } = validateKubeconfigNames(params);
  const caPem = requirePem("caPem", params.caPem, /-----BEGIN CERTIFICATE-----/);
  const certPem = requirePem("certPem", params.certPem, /-----BEGIN CERTIFICATE-----/);
  const keyPem = requirePem("keyPem", params.keyPem, /-----BEGIN (RSA |EC )?PRIVATE KEY-----/);
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: clusterName, cluster: { server: params.server, "certificate-authority-data": base64(caPem) } },
    ],
    users: [
      {
        name: userName,
        user: { "client-certificate-data": base64(certPem), "client-key-data": base64(keyPem) },
      },
    ],
    contexts: [{ name: contextName, context: { cluster: clusterName, user: userName } }],
    "current-context": contextName,
    preferences: {},
  });
}
