/**
 * A private copy of the repository's Pulumi project for e2e stacks. `Pulumi.<stack>.yaml` files (which
 * the CLI writes next to Pulumi.yaml, encryption salt included) must not land in the repository, and
 * Pulumi requires `main` to lie inside the project directory, so the copy holds Pulumi.yaml itself and
 * symlinks to the program and what it needs. Node resolves the symlinks to the real files, so the program
 * runs from the repository with the repository's node_modules.
 */
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../testbed";

/** Repository entries the project links to: the program (`main: stacks/index.ts`), its dependencies, compiler settings. */
const LINKED_ENTRIES = ["stacks", "node_modules", "package.json", "tsconfig.json"] as const;

/**
 * Creates (or refreshes) the project copy in `dir`: Pulumi.yaml copied, {@link LINKED_ENTRIES} linked,
 * from `root` — the repository, or another release's tree (refreshing with a different root is how the
 * upgrade gate switches a deployed stack to the code under test). Returns `dir`. Stack config files
 * already in `dir` are left alone.
 */
export function mirrorStacksProject(dir: string, root: string = REPO_ROOT): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(root, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
  for (const entry of LINKED_ENTRIES) {
    const link = path.join(dir, entry);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(path.join(root, entry), link);
  }
  return dir;
}
