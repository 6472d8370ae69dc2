import * as fs from "fs";
import * as path from "path";
import { BENCHES } from "../../../bench/benches";

test("npm run bench runs every bench file in bench/ (run.ts and benches.ts are the runner)", () => {
  const dir = path.join(__dirname, "..", "..", "..", "bench");
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && f !== "run.ts" && f !== "benches.ts")
    .sort();
  expect(BENCHES.map((b) => b.file).sort()).toEqual(files);
});
