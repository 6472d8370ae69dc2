import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PreviewSettings } from "../../../console/server/settingsFile";

describe("a preview's settings file", () => {
  let dir: string;
  let programDir: string;
  let dataDir: string;
  const ORIGINAL = "config:\n  karmada:controlPlane:\n    mode: hosts\n";
  const EDITED = 'config:\n  karmada:controlPlane: \'{"mode":"hosts","components":{}}\'\n';

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-preview-settings-"));
    programDir = path.join(dir, "program");
    dataDir = path.join(dir, "data");
    fs.mkdirSync(programDir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const settingsFile = () => path.join(programDir, "Pulumi.local.yaml");
  const kept = () =>
    fs.existsSync(path.join(dataDir, "previews")) ? fs.readdirSync(path.join(dataDir, "previews")) : [];

  it("is put back after the preview, whether it succeeded or failed, and nothing is left kept", async () => {
    fs.writeFileSync(settingsFile(), ORIGINAL);
    const settings = new PreviewSettings(programDir, dataDir);
    const seen = await settings.withRestored("local", async () => {
      fs.writeFileSync(settingsFile(), EDITED);
      return fs.readFileSync(settingsFile(), "utf8");
    });
    expect(seen).toBe(EDITED);
    expect(fs.readFileSync(settingsFile(), "utf8")).toBe(ORIGINAL);
    await expect(
      settings.withRestored("local", async () => {
        fs.writeFileSync(settingsFile(), EDITED);
        throw new Error("engine failed");
      }),
    ).rejects.toThrow("engine failed");
    expect(fs.readFileSync(settingsFile(), "utf8")).toBe(ORIGINAL);
    expect(kept()).toEqual([]);
  });

  it("a stack with no settings file has none again afterwards", async () => {
    const settings = new PreviewSettings(programDir, dataDir);
    await settings.withRestored("dev", async () =>
      fs.writeFileSync(path.join(programDir, "Pulumi.dev.yaml"), EDITED),
    );
    expect(fs.existsSync(path.join(programDir, "Pulumi.dev.yaml"))).toBe(false);
  });

  it("a console stopped in the middle of a preview puts the settings back when it starts again", async () => {
    fs.writeFileSync(settingsFile(), ORIGINAL);
    const stopped = new PreviewSettings(programDir, dataDir);
    // the preview never ends: the process is gone with the edits in the file
    void stopped.withRestored("local", () => {
      fs.writeFileSync(settingsFile(), EDITED);
      return new Promise<never>(() => undefined);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(fs.readFileSync(settingsFile(), "utf8")).toBe(EDITED);
    // a copy cut short while being written was never followed by an edit: it is dropped
    fs.writeFileSync(path.join(dataDir, "previews", "other.json.new"), '{"stack":"oth');
    const restarted = new PreviewSettings(programDir, dataDir);
    expect(restarted.recover()).toEqual(["local"]);
    expect(fs.readFileSync(settingsFile(), "utf8")).toBe(ORIGINAL);
    expect(kept()).toEqual([]);
    expect(restarted.recover()).toEqual([]);
  });

  it("keeps the copy readable by the console's user only", async () => {
    fs.writeFileSync(settingsFile(), ORIGINAL);
    const settings = new PreviewSettings(programDir, dataDir);
    await settings.withRestored("local", async () => {
      const [file] = kept();
      expect(fs.statSync(path.join(dataDir, "previews", file)).mode & 0o777).toBe(0o600);
    });
  });
});
