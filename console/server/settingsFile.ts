/**
 * A preview of setting edits writes them into the stack's settings file (`Pulumi.<stack>.yaml`, where the
 * engine reads them) and puts the file back afterwards. While the preview runs, the file as it was is
 * also kept in the data directory, so that a console stopped in the middle (killed, the machine lost)
 * puts it back when it starts again: edits that were only previewed are never left in a stack.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** What is kept of a settings file while a preview has it: its text, or that there was none. */
interface KeptSettings {
  readonly stack: string;
  readonly text: string | null;
}

export class PreviewSettings {
  private readonly keptDir: string;

  /**
   * @param programDir the Pulumi project directory holding the stacks' settings files
   * @param dataDir the console's data directory (the kept files go to `<dataDir>/previews/`)
   */
  constructor(
    private readonly programDir: string,
    dataDir: string,
  ) {
    this.keptDir = path.join(dataDir, "previews");
  }

  /** The settings file of stack `name`. */
  file(name: string): string {
    return path.join(this.programDir, `Pulumi.${name}.yaml`);
  }

  private keptFile(name: string): string {
    return path.join(this.keptDir, `${encodeURIComponent(name)}.json`);
  }

  /** Runs `body` with the stack's settings file put back afterwards, whatever `body` wrote into it. */
  async withRestored<T>(name: string, body: () => Promise<T>): Promise<T> {
    const file = this.file(name);
    const kept: KeptSettings = {
      stack: name,
      text: fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null,
    };
    fs.mkdirSync(this.keptDir, { recursive: true, mode: 0o700 });
    // written whole before the settings change (a rename), so a crash leaves the old copy or the new one
    const keptFile = this.keptFile(name);
    fs.writeFileSync(`${keptFile}.new`, JSON.stringify(kept), { mode: 0o600 });
    fs.renameSync(`${keptFile}.new`, keptFile);
    try {
      return await body();
    } finally {
      this.putBack(kept);
      fs.rmSync(keptFile, { force: true });
    }
  }

  /** Puts back the settings files of previews a stopped console left; the stacks whose file it put back. */
  recover(): string[] {
    if (!fs.existsSync(this.keptDir)) return [];
    const recovered: string[] = [];
    for (const entry of fs.readdirSync(this.keptDir).sort()) {
      const keptFile = path.join(this.keptDir, entry);
      if (!entry.endsWith(".json")) {
        // a copy whose writing was cut short: the settings had not been changed yet
        fs.rmSync(keptFile, { force: true });
        continue;
      }
      const kept = JSON.parse(fs.readFileSync(keptFile, "utf8")) as KeptSettings;
      this.putBack(kept);
      fs.rmSync(keptFile, { force: true });
      recovered.push(kept.stack);
    }
    return recovered;
  }

  private putBack(kept: KeptSettings): void {
    const file = this.file(kept.stack);
    if (kept.text === null) fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, kept.text);
  }
}
