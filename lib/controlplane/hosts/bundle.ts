/**
 * The files one component receives on a host, and how they travel: framed into one stdin stream per
 * component (keys never appear in a script, an argument or the environment), split back on the host.
 */
import { createHash } from "crypto";
import { COMPONENT_PKI_FILES, KUBECONFIG_COMPONENTS, PkiFile } from "../../pki/layout";
import { ControlPlaneComponent } from "../flags-ports";

/** Name of the kubeconfig inside a component's bundle (written next to, not into, the pki dir). */
export const KUBECONFIG_FILE = "karmada.config";

/** A file of a component's bundle: a PKI file or its kubeconfig. */
export type BundleFile = PkiFile | typeof KUBECONFIG_FILE;

/**
 * Files of a component: its PKI files (exactly the containerized Secret's), and for components with a
 * kubeconfig that kubeconfig plus their client certificate — public, but part of the fingerprint, so
 * a reissued client identity restarts the component.
 */
export function componentBundleFiles(component: ControlPlaneComponent): BundleFile[] {
  const kubeconfig: BundleFile[] = KUBECONFIG_COMPONENTS.includes(component)
    ? [`${component}-client.crt`, KUBECONFIG_FILE]
    : [];
  return [...COMPONENT_PKI_FILES[component], ...kubeconfig];
}

/** Private material: keys and the kubeconfig (it embeds a key). Written 0600. */
const isPrivateFile = (file: BundleFile): boolean => file.endsWith(".key") || file === KUBECONFIG_FILE;

/**
 * Mode of a bundle file on the host: 0600 for private material, 0644 for certificates and public keys.
 * Either way in a 0700 directory owned by the component's service user (see `pkiScript`).
 */
export const bundleFileMode = (file: BundleFile): "0600" | "0644" => (isPrivateFile(file) ? "0600" : "0644");

/** The line that starts a file in a bundle. */
const bundleHeader = (file: BundleFile): string => `--- pulumi-karmada file: ${file} ---`;

/** File content as written on the host: trimmed, one trailing newline. */
const normalized = (content: string): string => `${content.trim()}\n`;

/** Frames `files` (in {@link componentBundleFiles} order) into one stream for stdin. */
export function frameBundle(
  component: ControlPlaneComponent,
  files: Readonly<Record<string, string>>,
): string {
  return componentBundleFiles(component)
    .map((file) => {
      const content = files[file];
      if (content === undefined) throw new Error(`bundle of ${component} lacks ${file}`);
      return `${bundleHeader(file)}\n${normalized(content)}`;
    })
    .join("");
}

/** The public files of a bundle, sorted: what the restart fingerprint covers. */
export function fingerprintFiles(component: ControlPlaneComponent): BundleFile[] {
  return componentBundleFiles(component)
    .filter((f) => !isPrivateFile(f))
    .sort();
}

/**
 * SHA-256 of the component's public files as written on the host, in {@link fingerprintFiles} order —
 * the same bytes `cat <files> | sha256sum` reads there. Keys are left out: each rotates with its
 * certificate, so a new certificate already changes this.
 */
export function publicFilesFingerprint(
  component: ControlPlaneComponent,
  files: Readonly<Record<string, string>>,
): string {
  const hash = createHash("sha256");
  for (const file of fingerprintFiles(component)) hash.update(normalized(files[file] ?? ""));
  return hash.digest("hex");
}
