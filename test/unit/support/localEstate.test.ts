/**
 * The local estate refuses to start over another one (an `npm start` estate left up, a suite or bench
 * still running): its lab's network namespace is looked up, never its addresses probed.
 */
import { readLayout } from "../../../devkit/sandbox/bed";
import { localLabRunning } from "../../../devkit/engine/localEstate";

describe("localLabRunning", () => {
  const layout = readLayout();

  test("names the lab's network namespace when it exists", () => {
    const asked: string[] = [];
    const exists = (netns: string) => {
      asked.push(netns);
      return true;
    };
    expect(localLabRunning(layout, exists)).toBe("pk-local");
    expect(asked).toEqual(["pk-local"]);
  });

  test("nothing runs when the namespace does not exist", () => {
    expect(localLabRunning(layout, () => false)).toBeUndefined();
  });
});
