/**
 * The lab's image registry: Debian's docker-registry (the CNCF distribution registry) on the lab gateway,
 * storage in the lab directory, and every image the test bed built pushed into it with skopeo. Nodes
 * pull from it over plain HTTP; nothing is ever preloaded into a node's containerd.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as http from "http";
import * as path from "path";
import { promisify } from "util";
import { currentEnv, requireBinary, testbedEnv } from "../testbed";
import { awaitProcess } from "./controlPlane";
import type { LabPlan } from "./plan";
import { Place, preparePlace, startIn } from "./place";

const execFileAsync = promisify(execFile);

/** One image the test bed built. */
export interface BuiltImage {
  /** Path under a registry and tag, e.g. `karmada/karmada-scheduler:v1.18.2`. */
  readonly ref: string;
  /** The upstream image it stands for, e.g. `docker.io/karmada/karmada-scheduler:v1.18.2`. */
  readonly upstream: string;
  /** What is inside, in words. */
  readonly contents: string;
}

/** Where the test bed's images are: its OCI layout and the list of what it holds. */
export interface ImageSource {
  readonly ociLayout: string;
  readonly list: string;
}

/** The test bed's image source (scripts/testbed/env.sh's TESTBED_IMAGES_OCI and TESTBED_IMAGES_LIST). */
export function testbedImages(): ImageSource {
  const env = testbedEnv().env;
  const ociLayout = env.TESTBED_IMAGES_OCI;
  const list = env.TESTBED_IMAGES_LIST;
  if (!ociLayout || !list || !fs.existsSync(list) || !fs.existsSync(path.join(ociLayout, "index.json"))) {
    throw new Error("the test bed's images are not built (scripts/testbed/build.sh images)");
  }
  return { ociLayout, list };
}

/** The images of a list file (`<ref>\t<upstream>\t<contents>` lines). */
export function readImageList(text: string): BuiltImage[] {
  return text
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => {
      const [ref, upstream, contents] = line.split("\t");
      if (!ref || !upstream)
        throw new Error(`image list line without a ref and its upstream: ${JSON.stringify(line)}`);
      return { ref, upstream, contents: contents ?? "" };
    });
}

/** The registry's process name (its pid and log files). */
export const REGISTRY_PROCESS = "docker-registry";

/** The place of the registry process. */
export function registryPlace(lab: LabPlan): Place {
  return { netns: lab.netns, cgroup: `${lab.cgroup}/registry`, runDir: path.join(lab.dir, "registry") };
}

/** docker-registry's config: filesystem storage in the lab dir, HTTP on the gateway. */
function registryConfig(lab: LabPlan): string {
  return [
    "version: 0.1",
    "log:",
    "  level: warn",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${JSON.stringify(path.join(lab.dir, "registry", "data"))}`,
    "http:",
    `  addr: ${lab.registry}`,
    // one registry process: a generated secret is fine, but say so to keep its log quiet
    `  secret: lab-${lab.name}`,
    "",
  ].join("\n");
}

function catalogAnswers(registry: string): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(`http://${registry}/v2/`, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on("error", () => resolve(false));
  });
}

/** Starts the registry and resolves once it answers `/v2/`. */
export async function startRegistry(lab: LabPlan, timeoutMs = 30_000): Promise<void> {
  const place = registryPlace(lab);
  preparePlace(place);
  const configPath = path.join(place.runDir, "config.yml");
  fs.writeFileSync(configPath, registryConfig(lab), { mode: 0o600 });
  const env = currentEnv();
  const proc = startIn(place, REGISTRY_PROCESS, requireBinary("docker-registry"), ["serve", configPath], env);
  await awaitProcess(`registry on ${lab.registry}`, proc, () => catalogAnswers(lab.registry), timeoutMs);
}

/** Pushes every image of `source` to the lab registry (a few at a time); returns what was pushed. */
export async function pushImages(lab: LabPlan, source: ImageSource = testbedImages()): Promise<BuiltImage[]> {
  const images = readImageList(fs.readFileSync(source.list, "utf8"));
  const skopeo = requireBinary("skopeo");
  const queue = [...images];
  const worker = async () => {
    for (let image = queue.shift(); image; image = queue.shift()) {
      const args = [
        "copy",
        "--quiet",
        "--dest-tls-verify=false",
        `oci:${source.ociLayout}:${image.ref}`,
        `docker://${lab.registry}/${image.ref}`,
      ];
      try {
        await execFileAsync(skopeo, args, { maxBuffer: 16 << 20 });
      } catch (e) {
        throw new Error(
          `pushing ${image.ref} to ${lab.registry}: ${(e as { stderr?: string }).stderr ?? (e as Error).message}`,
        );
      }
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return images;
}
