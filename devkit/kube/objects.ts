/**
 * Looks Kubernetes objects up by apiVersion/kind/namespace/name on a real API server, using its discovery
 * documents to find the resource path (so any kind works, CRDs included).
 */
import { ApiCredentials, apiGet } from "../kubeClient";
import { callApi } from "../../lib/kube/rest";

/** An object by identity. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string;
}

interface ResourceInfo {
  readonly plural: string;
  readonly namespaced: boolean;
}

/** Resolves kinds to resource paths with the server's discovery documents (cached per server and group version). */
export class ObjectLocator {
  private readonly discovery = new Map<string, Promise<Map<string, ResourceInfo>>>();

  constructor(private readonly creds: ApiCredentials) {}

  private groupVersionPath(apiVersion: string): string {
    return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  }

  private resources(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    let cached = this.discovery.get(apiVersion);
    if (!cached) {
      cached = apiGet(this.creds, this.groupVersionPath(apiVersion)).then((list) => {
        const byKind = new Map<string, ResourceInfo>();
        for (const r of list.resources as { name: string; kind: string; namespaced: boolean }[]) {
          if (!r.name.includes("/")) byKind.set(r.kind, { plural: r.name, namespaced: r.namespaced });
        }
        return byKind;
      });
      // a failed discovery (e.g. a CRD not established yet) must be retried, not remembered
      cached.catch(() => this.discovery.delete(apiVersion));
      this.discovery.set(apiVersion, cached);
    }
    return cached;
  }

  /** API path of the object, e.g. `/apis/apps/v1/namespaces/ns/deployments/name`. */
  async path(ref: ObjectRef): Promise<string> {
    const info = (await this.resources(ref.apiVersion)).get(ref.kind);
    if (!info) throw new Error(`the server does not serve ${ref.kind} in ${ref.apiVersion}`);
    const ns = info.namespaced ? `/namespaces/${ref.namespace ?? "default"}` : "";
    return `${this.groupVersionPath(ref.apiVersion)}${ns}/${info.plural}/${ref.name}`;
  }

  /** The live object, or undefined when the server answers 404 (or no longer serves the kind at all). */
  async get(ref: ObjectRef): Promise<any | undefined> {
    let objectPath: string;
    try {
      objectPath = await this.path(ref);
    } catch (e) {
      // a CRD's kind disappears from discovery together with its objects
      if (/does not serve|HTTP 404/.test((e as Error).message)) return undefined;
      throw e;
    }
    const res = await callApi(this.creds, "GET", objectPath);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`GET ${objectPath}: HTTP ${res.status}`);
    return res.body;
  }

  /** Forgets discovery results (after CRDs were added or removed). */
  reset(): void {
    this.discovery.clear();
  }
}
