import { ImageName } from "./components";
import { KarmadaRelease } from "./releases";

/** Where the upstream images live. */
export const UPSTREAM_REGISTRIES = {
  /** Karmada's own images (every `karmada-*` component but karmada-apiserver). */
  karmada: "docker.io/karmada",
  /** kube-apiserver (karmada-apiserver), kube-controller-manager and etcd. */
  kubernetes: "registry.k8s.io",
  /** The backup job's tools image (busybox). */
  library: "docker.io/library",
} as const;

/** Repository and tag of the backup job's tools image: a release of busybox, whatever Karmada release. */
export const BACKUP_TOOLS_IMAGE = {
  /** Repository under the upstream library registry. */
  repository: "busybox",
  /** Release tag, independent of the Karmada release. */
  tag: "1.37.0",
} as const;

/** Image settings a user may give. */
export interface ImageSettings {
  /**
   * Private registry (host[/path]) that replaces the upstream registry of EVERY image, Karmada and
   * Kubernetes alike, for offline installs: `registry.local:5000/karmada` turns
   * `docker.io/karmada/karmada-scheduler:v1.18.2` into `registry.local:5000/karmada/karmada-scheduler:v1.18.2`.
   */
  readonly registry?: string;
  /** Per-image override of the repository (without tag); wins over `registry`. */
  readonly repositories?: Partial<Record<ImageName, string>>;
  /** Per-image override of the tag; wins over the catalog. */
  readonly tags?: Partial<Record<ImageName, string>>;
}

const KUBE_IMAGES: ReadonlySet<ImageName> = new Set(["karmada-apiserver", "kube-controller-manager", "etcd"]);

/** Upstream repository name of an image (karmada-apiserver runs the kube-apiserver image). */
function upstreamRepository(image: ImageName): string {
  if (image === "etcd-backup-tools") return `${UPSTREAM_REGISTRIES.library}/${BACKUP_TOOLS_IMAGE.repository}`;
  if (image === "karmada-apiserver") return `${UPSTREAM_REGISTRIES.kubernetes}/kube-apiserver`;
  if (KUBE_IMAGES.has(image)) return `${UPSTREAM_REGISTRIES.kubernetes}/${image}`;
  return `${UPSTREAM_REGISTRIES.karmada}/${image}`;
}

/** Catalog tag of an image for a release. */
export function catalogTag(image: ImageName, release: KarmadaRelease): string {
  if (image === "etcd-backup-tools") return BACKUP_TOOLS_IMAGE.tag;
  if (image === "etcd") return `${release.etcdVersion}-0`;
  if (KUBE_IMAGES.has(image)) return release.kubernetesVersion;
  return release.version;
}

/** Resolves the full image reference `repository:tag` of one image. */
export function resolveImage(
  image: ImageName,
  release: KarmadaRelease,
  settings: ImageSettings = {},
): string {
  const upstream = upstreamRepository(image);
  const base = upstream.slice(upstream.lastIndexOf("/") + 1);
  const repository =
    settings.repositories?.[image] ??
    (settings.registry ? `${settings.registry.replace(/\/+$/, "")}/${base}` : upstream);
  return `${repository}:${settings.tags?.[image] ?? catalogTag(image, release)}`;
}
