/** A minimal Kubernetes API client from a kubeconfig (client certificate or token auth), for the test bed. */
import { readFileSync } from "node:fs";
import * as https from "node:https";
import { parse } from "yaml";

export interface KubeResponse {
  readonly status: number;
  readonly body: any;
}

export class KubeClient {
  private readonly server: URL;
  private readonly agent: https.Agent;
  private readonly token?: string;

  constructor(kubeconfigPath: string, token?: string) {
    const config = parse(readFileSync(kubeconfigPath, "utf8"));
    const context =
      config.contexts.find((c: any) => c.name === config["current-context"])?.context ??
      config.contexts[0].context;
    const cluster = config.clusters.find((c: any) => c.name === context.cluster).cluster;
    const user = config.users.find((u: any) => u.name === context.user)?.user ?? {};
    const data = (inline?: string, file?: string) =>
      inline ? Buffer.from(inline, "base64") : file ? readFileSync(file) : undefined;
    this.server = new URL(cluster.server);
    this.token = token ?? (token === undefined ? user.token : undefined);
    this.agent = new https.Agent({
      ca: data(cluster["certificate-authority-data"], cluster["certificate-authority"]),
      cert: token ? undefined : data(user["client-certificate-data"], user["client-certificate"]),
      key: token ? undefined : data(user["client-key-data"], user["client-key"]),
      rejectUnauthorized: !cluster["insecure-skip-tls-verify"],
    });
  }

  /** The same API server, authenticated with a bearer token instead. */
  withToken(kubeconfigPath: string, token: string): KubeClient {
    return new KubeClient(kubeconfigPath, token);
  }

  request(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<KubeResponse> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, this.server),
        {
          method,
          agent: this.agent,
          headers: {
            "content-type": contentType,
            accept: "application/json",
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          },
          timeout: 15_000,
        },
        (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              /* plain text body */
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on("error", reject);
      req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
      if (body !== undefined) req.write(JSON.stringify(body));
      req.end();
    });
  }

  /** Server-side apply of one object (field manager pulumi-karmada-testbed). */
  apply(obj: any): Promise<KubeResponse> {
    return this.request(
      "PATCH",
      `${objectPath(obj)}?fieldManager=pulumi-karmada-testbed&force=true`,
      obj,
      "application/apply-patch+yaml",
    );
  }
}

const PLURALS: Record<string, string> = {
  Namespace: "namespaces",
  ServiceAccount: "serviceaccounts",
  Secret: "secrets",
  ClusterRole: "clusterroles",
  ClusterRoleBinding: "clusterrolebindings",
  Role: "roles",
  RoleBinding: "rolebindings",
  Deployment: "deployments",
};

/** REST path of an object. */
export function objectPath(obj: {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}): string {
  const base = obj.apiVersion.includes("/") ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  const ns = obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : "";
  return `${base}${ns}/${PLURALS[obj.kind]}/${obj.metadata.name}`;
}
