/**
 * The test bed's container images (scripts/testbed/build.sh images; recipe devkit/images/images.sh) stand
 * in for every upstream image an estate pulls, under the paths the library resolves them to with
 * `images.registry = "<host:port>/karmada"`, plus the node infrastructure (pause, CoreDNS,
 * local-path-provisioner, busybox). Checked here: the recipe's list against the catalog and kubeadm's pins
 * (no build needed), then the built OCI layout (digests, configs) and that each image holds the binary
 * the manifests' `command` runs, read from the layer tars.
 */
import { createHash } from "crypto";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { createGunzip } from "zlib";
import { REPO_ROOT, testbedEnv, testbedVersions } from "../../../devkit/testbed";
import { estimatorManifests } from "../../../lib/addons/estimator";
import {
  BACKUP_TOOLS_IMAGE,
  DEFAULT_KARMADA_VERSION,
  IMAGE_NAMES,
  ImageName,
  OPTIONAL_COMPONENTS,
  findRelease,
  resolveImage,
} from "../../../lib/catalog";
import { EtcdInClusterArgs } from "../../../lib/etcd/config";
import { resolveEtcdInClusterSettings } from "../../../lib/etcd/resolve";
import type { KubeObject } from "../../../lib/kube/apply";
import { STORE_SCRIPT, etcdInClusterManifests } from "../../../lib/manifests/etcd";
import { hostWorkloadManifests } from "../../../lib/manifests/workloads";
import { MemberRegistrationConfig } from "../../../lib/members/config";
import { resolveMemberSettings } from "../../../lib/members/resolve";
import { agentMemberObjects } from "../../../lib/members/pull";
import { testSettings } from "../../support/settings";
import {
  KUBERNETES_MODULE,
  describeUpstream,
  describeWithGo,
  upstreamModuleDir,
} from "../../support/upstream";

const VERSIONS = testbedVersions();
const RELEASE = findRelease(DEFAULT_KARMADA_VERSION);
const REGISTRY = "registry.test:5000";
const HINT = "run scripts/testbed/build.sh images";

/** One line of images.tsv. */
interface ImageRow {
  readonly ref: string;
  readonly upstream: string;
  readonly what: string;
}

const parseRows = (tsv: string): ImageRow[] =>
  tsv
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [ref, upstream, what] = line.split("\t");
      return { ref, upstream, what };
    });

/** Runs a function of the recipe (sourced after lib.sh, as build.sh does); its stdout. */
function recipe(fn: string): string {
  return execFileSync(
    "bash",
    [
      "-c",
      '. "$1/scripts/testbed/lib.sh" && . "$1/devkit/images/images.sh" && "$2"',
      "recipe",
      REPO_ROOT,
      fn,
    ],
    { encoding: "utf8" },
  );
}

/** Where the library's manifests put `image` with `images.registry = "<REGISTRY>/karmada"`, minus the host. */
const testbedRef = (image: ImageName) =>
  resolveImage(image, RELEASE, { registry: `${REGISTRY}/karmada` }).slice(REGISTRY.length + 1);

describe("the image recipe (devkit/images/images.sh)", () => {
  const rows = parseRows(recipe("images_list"));
  const refs = rows.map((r) => r.ref);

  it("lists each ref once, each standing for an upstream image", () => {
    expect(new Set(refs).size).toBe(refs.length);
    for (const row of rows) expect(row.upstream).toMatch(/^[a-z0-9.-]+\.[a-z]+\/[a-z0-9/_.-]+:[\w.-]+$/);
  });

  it.each(IMAGE_NAMES)(
    "has catalog image %s where the library pulls it from with a registry setting",
    (image) => {
      const ref = testbedRef(image);
      const row = rows.find((r) => r.ref === ref);
      if (!row)
        throw new Error(
          `${image} resolves to ${REGISTRY}/${ref}, which the recipe does not build (refs: ${refs.join(", ")})`,
        );
      expect(row.upstream).toBe(resolveImage(image, RELEASE));
    },
  );

  it("has the node infrastructure at the registry root, at the pinned versions", () => {
    expect(refs).toEqual(
      expect.arrayContaining([
        `pause:${VERSIONS.PAUSE_VERSION}`,
        `coredns/coredns:${VERSIONS.COREDNS_VERSION}`,
        `rancher/local-path-provisioner:${VERSIONS.LOCAL_PATH_PROVISIONER_VERSION}`,
        `busybox:${VERSIONS.BUSYBOX_IMAGE_TAG}`,
      ]),
    );
  });

  it("tags busybox as the catalog's backup tools image", () => {
    expect(VERSIONS.BUSYBOX_IMAGE_TAG).toBe(BACKUP_TOOLS_IMAGE.tag);
  });
});

describeUpstream("CoreDNS and pause follow kubeadm's pins", [KUBERNETES_MODULE], () => {
  it("versions.env pins the CoreDNS and pause versions of kubeadm at KUBE_VERSION", () => {
    expect(KUBERNETES_MODULE.version).toBe(VERSIONS.KUBE_VERSION);
    const constants = fs.readFileSync(
      path.join(upstreamModuleDir(KUBERNETES_MODULE), "cmd/kubeadm/app/constants/constants.go"),
      "utf8",
    );
    expect(/CoreDNSVersion = "([^"]+)"/.exec(constants)?.[1]).toBe(VERSIONS.COREDNS_VERSION);
    expect(/PauseVersion = "([^"]+)"/.exec(constants)?.[1]).toBe(VERSIONS.PAUSE_VERSION);
  });
});

// build.sh checks for go before anything else
describeWithGo(
  "build.sh images: what it packs must be built",
  "scripts/testbed/build.sh, which requires Go",
  () => {
    it("fails naming the first missing component and how to build it, leaving no images", () => {
      const cache = fs.mkdtempSync(path.join(os.tmpdir(), "pk-images-"));
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_KARMADA_CACHE: cache };
        delete env.TESTBED_DEADLINE_EPOCH;
        const r = spawnSync("bash", [path.join(REPO_ROOT, "scripts/testbed/build.sh"), "images"], {
          encoding: "utf8",
          env,
          timeout: 60_000,
        });
        expect(r.status).toBe(1);
        expect(`${r.stdout}${r.stderr}`).toContain(
          "images: component kube is not built (the images pack its binaries): scripts/testbed/build.sh kube",
        );
        const dirs = fs.readdirSync(path.join(cache, "testbed")).filter((d) => d.startsWith("images-"));
        expect(dirs).toHaveLength(1);
        expect(fs.existsSync(path.join(cache, "testbed", dirs[0], ".done"))).toBe(false);
        expect(fs.existsSync(path.join(cache, "testbed", dirs[0], "oci", "index.json"))).toBe(false);
      } finally {
        fs.rmSync(cache, { recursive: true, force: true });
      }
    });
  },
);

// ---------------------------------------------------------------------------------------------------
// The built images

/** A content descriptor of the OCI image spec. */
interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Record<string, string>;
}

/** One file of a layer, or of an image's merged filesystem (last layer wins). */
interface Entry {
  /** `-` regular file, `d` directory, `l` symlink, `h` hard link, `?` anything else. */
  readonly type: string;
  /** Permission bits, e.g. 0o755. */
  readonly mode: number;
  /** Link target (symlinks, hard links). */
  readonly target?: string;
}

/** What one read of a layer blob gives. */
interface LayerRead {
  readonly digest: string;
  readonly size: number;
  /** sha256 of the decompressed tar. */
  readonly diffId: string;
  readonly entries: Map<string, Entry>;
}

/** One built image: its config and merged filesystem. */
interface BuiltImage {
  readonly ref: string;
  readonly manifest: { mediaType: string; config: Descriptor; layers: Descriptor[] };
  readonly config: any;
  readonly files: Map<string, Entry>;
}

const MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const LAYER = "application/vnd.oci.image.layer.v1.tar+gzip";

const TAR_TYPES: Readonly<Record<string, string>> = { "0": "-", "\0": "-", "5": "d", "2": "l", "1": "h" };

/**
 * A minimal streaming tar reader (ustar headers, pax `path`/`linkpath` records, GNU long names): enough
 * for layers written by GNU tar, without keeping file data. `push` the decompressed bytes in order.
 */
function tarReader(): { push(chunk: Buffer): void; entries: Map<string, Entry> } {
  const entries = new Map<string, Entry>();
  let buf: Buffer = Buffer.alloc(0);
  let skip = 0; // data bytes (and padding) still to pass over
  let meta: { type: string; left: number; padding: number; parts: Buffer[] } | undefined;
  let next: { path?: string; linkpath?: string } = {};
  const text = (b: Buffer, start: number, len: number) => {
    const field = b.subarray(start, start + len);
    const nul = field.indexOf(0);
    return field.subarray(0, nul < 0 ? len : nul).toString("utf8");
  };
  const octal = (b: Buffer, start: number, len: number) => parseInt(text(b, start, len).trim() || "0", 8);
  const endMeta = (m: NonNullable<typeof meta>) => {
    const data = Buffer.concat(m.parts).toString("utf8");
    if (m.type === "L") next.path = data.replace(/\0+$/, "");
    else if (m.type === "K") next.linkpath = data.replace(/\0+$/, "");
    else if (m.type === "x") {
      for (const record of data.split("\n")) {
        const kv = /^\d+ (path|linkpath)=(.*)$/.exec(record);
        if (kv) next[kv[1] as "path" | "linkpath"] = kv[2];
      }
    }
    skip = m.padding;
  };
  const header = (h: Buffer) => {
    const size = octal(h, 124, 12);
    const padding = Math.ceil(size / 512) * 512 - size;
    const flag = String.fromCharCode(h[156]);
    if (["x", "L", "K", "g"].includes(flag)) {
      meta = { type: flag, left: size, padding, parts: [] };
      return;
    }
    const prefix = text(h, 257, 6).startsWith("ustar") ? text(h, 345, 155) : "";
    const name = next.path ?? (prefix ? `${prefix}/${text(h, 0, 100)}` : text(h, 0, 100));
    const target = next.linkpath ?? (text(h, 157, 100) || undefined);
    next = {};
    const type = TAR_TYPES[flag] ?? "?";
    entries.set(name.replace(/^\.\//, "").replace(/\/$/, ""), {
      type,
      mode: octal(h, 100, 8) & 0o7777,
      target,
    });
    skip = size + padding;
  };
  const push = (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length > 0) {
      if (skip > 0) {
        const n = Math.min(skip, buf.length);
        skip -= n;
        buf = buf.subarray(n);
      } else if (meta) {
        const n = Math.min(meta.left, buf.length);
        meta.parts.push(buf.subarray(0, n));
        meta.left -= n;
        buf = buf.subarray(n);
        if (meta.left === 0) {
          endMeta(meta);
          meta = undefined;
        }
      } else if (buf.length >= 512) {
        const h = buf.subarray(0, 512);
        buf = buf.subarray(512);
        if (h.some((b) => b !== 0)) header(h); // all zeros: the end-of-archive blocks
      } else return;
    }
  };
  return { push, entries };
}

/** Reads a layer blob once: its digest and size, its diff_id and its entries. */
function readLayer(file: string): Promise<LayerRead> {
  return new Promise((resolve, reject) => {
    const compressed = createHash("sha256");
    const uncompressed = createHash("sha256");
    const tar = tarReader();
    let size = 0;
    const gunzip = createGunzip()
      .on("data", (chunk: Buffer) => {
        uncompressed.update(chunk);
        tar.push(chunk);
      })
      .on("error", reject)
      .on("end", () =>
        resolve({
          digest: `sha256:${compressed.digest("hex")}`,
          size,
          diffId: `sha256:${uncompressed.digest("hex")}`,
          entries: tar.entries,
        }),
      );
    fs.createReadStream(file)
      .on("data", (chunk) => {
        compressed.update(chunk as Buffer);
        size += chunk.length;
      })
      .on("error", reject)
      .pipe(gunzip);
  });
}

/** The executable an image runs for `command` (PATH lookup for a bare name, symlinks followed), if any. */
function executableIn(image: BuiltImage, command: string): string | undefined {
  const pathEnv = (image.config.config.Env as string[]).find((e) => e.startsWith("PATH="))!.slice(5);
  const candidates = command.includes("/") ? [command] : pathEnv.split(":").map((d) => `${d}/${command}`);
  for (const candidate of candidates) {
    let file = candidate.replace(/^\//, "");
    for (let hops = 0; hops < 8; hops++) {
      const entry = image.files.get(file);
      if (entry?.type === "l" && entry.target) {
        file = entry.target.startsWith("/")
          ? entry.target.slice(1)
          : path.posix.join(path.posix.dirname(file), entry.target);
        continue;
      }
      if (entry?.type === "-" && (entry.mode & 0o100) !== 0) return file;
      break;
    }
  }
  return undefined;
}

/** Every (image, command) pair of the rendered manifests: all control-plane components, etcd with its backup, the estimator and the agent. */
function manifestCommands(): { image: string; command: string }[] {
  const settings = testSettings({
    components: Object.fromEntries(OPTIONAL_COMPONENTS.map((c) => [c, { enabled: true }])),
  });
  const etcd = etcdInClusterManifests(
    resolveEtcdInClusterSettings({ namespace: "karmada-system", backup: {} } as EtcdInClusterArgs),
  );
  const member = resolveMemberSettings({
    clusterName: "m1",
    mode: "Pull",
    apiEndpoint: "https://m1.example:6443",
  } as MemberRegistrationConfig);
  const agent = agentMemberObjects(member, {
    image: resolveImage("karmada-agent", RELEASE),
    imagePullPolicy: "IfNotPresent",
    awaitRollout: true,
    rotationTrigger: "0",
  });
  const objects: KubeObject[] = [
    ...Object.values(hostWorkloadManifests(settings)).flat(),
    ...Object.values(etcd).flat(),
    ...estimatorManifests(settings, "m1"),
    ...agent.deployment,
  ];
  const pairs: { image: string; command: string }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === "object") {
      const o = node as Record<string, unknown>;
      if (typeof o.image === "string" && Array.isArray(o.command)) {
        pairs.push({ image: o.image, command: o.command[0] as string });
      }
      Object.values(o).forEach(visit);
    }
  };
  visit(objects);
  return pairs;
}

// build.sh needs Go; without it (PULUMI_KARMADA_NO_GO=1) there are no images to check
describeWithGo(
  "the built images (OCI layout and images.tsv)",
  "the images scripts/testbed/build.sh builds",
  () => {
    const { env } = testbedEnv();
    const oci = env.TESTBED_IMAGES_OCI ?? "";
    const list = env.TESTBED_IMAGES_LIST ?? "";
    const blob = (digest: string) => path.join(oci, "blobs", "sha256", digest.replace(/^sha256:/, ""));
    const readJson = (digest: string) => JSON.parse(fs.readFileSync(blob(digest), "utf8"));

    let index: { schemaVersion: number; mediaType: string; manifests: Descriptor[] };
    let images: Map<string, BuiltImage>;
    const image = (ref: string) => {
      const found = images.get(ref);
      if (!found) throw new Error(`${ref} is not in ${oci}/index.json`);
      return found;
    };

    const layers = new Map<string, LayerRead>();
    beforeAll(async () => {
      if (!fs.existsSync(list) || !fs.existsSync(path.join(oci, "index.json"))) {
        throw new Error(`the test bed's images are not built (no ${list} or ${oci}/index.json): ${HINT}`);
      }
      index = JSON.parse(fs.readFileSync(path.join(oci, "index.json"), "utf8"));
      images = new Map();
      for (const desc of index.manifests) {
        const ref = desc.annotations?.["org.opencontainers.image.ref.name"] ?? "";
        const manifest = readJson(desc.digest);
        const files = new Map<string, Entry>();
        for (const layer of manifest.layers as Descriptor[]) {
          if (!layers.has(layer.digest)) layers.set(layer.digest, await readLayer(blob(layer.digest)));
          for (const [p, e] of layers.get(layer.digest)!.entries) files.set(p, e);
        }
        images.set(ref, { ref, manifest, config: readJson(manifest.config.digest), files });
      }
    }, 300_000);

    it("the layer reader of this test agrees with GNU tar (symlinks, pax headers, modes)", () => {
      const layerOf = (ref: string) => image(ref).manifest.layers.at(-1)!.digest;
      for (const digest of [
        layerOf(`busybox:${VERSIONS.BUSYBOX_IMAGE_TAG}`),
        layerOf(`coredns/coredns:${VERSIONS.COREDNS_VERSION}`),
      ]) {
        const listing = execFileSync("tar", ["--numeric-owner", "-tvzf", blob(digest)], { encoding: "utf8" });
        const fromTar = listing
          .split("\n")
          .filter(Boolean)
          .map((line) => {
            const m = /^(\S)(\S{9})\s+\S+\s+\d+\s+\S+\s+\S+\s+(.+?)(?: -> (.+))?$/.exec(line)!;
            return `${m[3].replace(/\/$/, "")} ${m[1]} ${m[2]} ${m[4] ?? ""}`;
          });
        const symbolic = (mode: number) =>
          [...Array(9)].map((_, i) => ((mode >> (8 - i)) & 1 ? "rwx"[i % 3] : "-")).join("");
        const ours = [...layers.get(digest)!.entries].map(
          ([p, e]) => `${p} ${e.type} ${symbolic(e.mode)} ${e.target ?? ""}`,
        );
        expect(ours).toEqual(fromTar);
      }
    });

    it("images.tsv is the recipe's list, and the layout holds exactly its refs", () => {
      const rows = parseRows(fs.readFileSync(list, "utf8"));
      expect(rows).toEqual(parseRows(recipe("images_list")));
      expect([...images.keys()].sort()).toEqual(rows.map((r) => r.ref).sort());
    });

    it("is an OCI image layout: every blob matches its digest and size, every layer its diff_id", () => {
      expect(JSON.parse(fs.readFileSync(path.join(oci, "oci-layout"), "utf8"))).toEqual({
        imageLayoutVersion: "1.0.0",
      });
      expect(index).toMatchObject({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json" });
      const check = (d: Descriptor) => {
        const content = fs.readFileSync(blob(d.digest));
        expect(`sha256:${createHash("sha256").update(content).digest("hex")}`).toBe(d.digest);
        expect(content.length).toBe(d.size);
      };
      for (const desc of index.manifests) {
        expect(desc.mediaType).toBe(MANIFEST);
        check(desc);
        const { manifest, config } = image(desc.annotations!["org.opencontainers.image.ref.name"]);
        expect(manifest.mediaType).toBe(MANIFEST);
        expect(manifest.config.mediaType).toBe("application/vnd.oci.image.config.v1+json");
        check(manifest.config);
        expect(config).toMatchObject({ architecture: "amd64", os: "linux", rootfs: { type: "layers" } });
        expect(config.rootfs.diff_ids).toHaveLength(manifest.layers.length);
        for (const [i, layer] of manifest.layers.entries()) {
          expect(layer.mediaType).toBe(LAYER);
          const read = layers.get(layer.digest)!;
          expect({ digest: read.digest, size: read.size }).toEqual({
            digest: layer.digest,
            size: layer.size,
          });
          expect(config.rootfs.diff_ids[i]).toBe(read.diffId);
        }
      }
    });

    it.each(manifestCommands().map((p) => [p.command, p.image]))(
      "%s, the command of a container running %s, is an executable in that image",
      (command, upstream) => {
        const name = IMAGE_NAMES.find((n) => resolveImage(n, RELEASE) === upstream);
        if (!name) throw new Error(`${upstream} is not a catalog image`);
        const built = image(testbedRef(name));
        expect({ command, found: executableIn(built, command) }).toEqual({
          command,
          found: expect.any(String),
        });
      },
    );

    it("the etcd image has etcdctl and etcdutl for the backup job's snapshot step, and a /bin/sh", () => {
      const etcd = image(testbedRef("etcd"));
      for (const c of ["etcdctl", "etcdutl", "/bin/sh"])
        expect([c, executableIn(etcd, c)]).toEqual([c, expect.any(String)]);
    });

    it("the backup tools image has every tool the store step runs", () => {
      const tools = image(testbedRef("etcd-backup-tools"));
      for (const tool of ["date", "mv", "sha256sum", "ls", "sort", "tail", "rm", "wc"]) {
        expect(STORE_SCRIPT).toMatch(new RegExp(`\\b${tool}\\b`));
        expect([tool, executableIn(tools, tool)]).toEqual([tool, "bin/busybox"]);
      }
    });

    it("node infrastructure: entrypoints and users as upstream's images", () => {
      const cfg = (ref: string) => image(ref).config.config;
      expect(cfg(`pause:${VERSIONS.PAUSE_VERSION}`)).toMatchObject({
        Entrypoint: ["/pause"],
        User: "65535:65535",
      });
      expect(cfg(`coredns/coredns:${VERSIONS.COREDNS_VERSION}`)).toMatchObject({
        Entrypoint: ["/coredns"],
        User: "65532:65532",
      });
      const lpp = image(`rancher/local-path-provisioner:${VERSIONS.LOCAL_PATH_PROVISIONER_VERSION}`);
      expect(lpp.config.config.Cmd).toEqual(["local-path-provisioner"]);
      expect(executableIn(lpp, "local-path-provisioner")).toBe("usr/bin/local-path-provisioner");
      expect(executableIn(image(`pause:${VERSIONS.PAUSE_VERSION}`), "/pause")).toBe("pause");
      expect(executableIn(image(`coredns/coredns:${VERSIONS.COREDNS_VERSION}`), "/coredns")).toBe("coredns");
    });

    it("every image: PATH, users root/nonroot/nobody, a world-writable /tmp, one shared base layer, a source label", () => {
      const bases = new Set<string>();
      for (const img of images.values()) {
        expect(img.config.config.Env).toContain("PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        expect(img.files.get("etc/passwd")).toMatchObject({ type: "-" });
        expect(img.files.get("etc/group")).toMatchObject({ type: "-" });
        expect(img.files.get("tmp")).toEqual({ type: "d", mode: 0o1777, target: undefined });
        expect(img.config.config.Labels["org.opencontainers.image.source"]).toMatch(
          /^built by the pulumi-karmada test bed/,
        );
        bases.add(img.manifest.layers[0].digest);
      }
      expect(bases.size).toBe(1);
      const base = execFileSync("tar", ["-xzOf", blob([...bases][0]), "etc/passwd"], { encoding: "utf8" });
      expect(base.split("\n").map((l) => l.split(":").slice(0, 3).join(":"))).toEqual(
        expect.arrayContaining(["root:x:0", "nobody:x:65534", "nonroot:x:65532"]),
      );
    });

    it("busybox says which busybox it really holds (Debian's, not the tag's release)", () => {
      const real = recipe("busybox_version").trim();
      expect(real).toMatch(/^\d+\.\d+\.\d+$/);
      for (const ref of [`busybox:${VERSIONS.BUSYBOX_IMAGE_TAG}`, testbedRef("etcd-backup-tools")]) {
        expect(image(ref).config.config.Labels["org.opencontainers.image.version"]).toBe(real);
      }
    });
  },
);
