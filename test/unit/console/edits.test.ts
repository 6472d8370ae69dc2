import { configErrorsOf } from "../../../lib/validation/errors";
import { applyEdits } from "../../../console/server/edits";
import type { SettingValue } from "../../../console/server/estates";

const current: SettingValue[] = [
  {
    key: "karmada:controlPlane",
    secret: false,
    value: { components: { scheduler: { image: "r/s:v1", replicas: 2 } } },
  },
  {
    key: "karmada:members",
    secret: false,
    value: [{ clusterName: "m1", mode: "Push", apiEndpoint: "https://m1:6443" }],
  },
  { key: "karmada:sshPrivateKey", secret: true },
];

const fieldsOf = (run: () => unknown) => {
  try {
    run();
  } catch (e) {
    return configErrorsOf(e).map((error) => error.field);
  }
  return [];
};

describe("setting edits", () => {
  it("sets a value at a path, leaving the rest of the setting as it was", () => {
    const changed = applyEdits(current, [
      { key: "karmada:controlPlane", path: ["components", "scheduler", "image"], value: "r/s:v2" },
      { key: "karmada:members", path: [0, "region"], value: "eu-1" },
    ]);
    expect(changed.get("karmada:controlPlane")).toEqual({
      components: { scheduler: { image: "r/s:v2", replicas: 2 } },
    });
    expect(changed.get("karmada:members")).toEqual([
      { clusterName: "m1", mode: "Push", apiEndpoint: "https://m1:6443", region: "eu-1" },
    ]);
    // the current settings are not touched
    expect((current[0].value as any).components.scheduler.image).toBe("r/s:v1");
  });

  it("applies several edits of one setting in order", () => {
    const changed = applyEdits(current, [
      { key: "karmada:controlPlane", path: ["components", "webhook"], value: { replicas: 3 } },
      { key: "karmada:controlPlane", path: ["components", "webhook", "image"], value: "r/w:v1" },
    ]);
    expect((changed.get("karmada:controlPlane") as any).components.webhook).toEqual({
      replicas: 3,
      image: "r/w:v1",
    });
  });

  it("names each bad edit: unknown settings, secrets, paths through scalars, indexes out of range", () => {
    expect(
      fieldsOf(() =>
        applyEdits(current, [
          { key: "controlPlane", value: {} },
          { key: "karmada:sshPrivateKey", value: "x" },
          { key: "karmada:controlPlane", path: ["components", "scheduler", "image", "tag"], value: "v2" },
          { key: "karmada:members", path: [5], value: {} },
        ]),
      ),
    ).toEqual([
      "edits[0].key",
      "edits[1].key",
      "karmada:controlPlane.components.scheduler.image",
      "karmada:members",
    ]);
  });

  it("checks the result against the stack-file schema and the stack's own checks, naming the field", () => {
    expect(
      fieldsOf(() =>
        applyEdits(current, [
          { key: "karmada:controlPlane", path: ["components", "scheduler", "replicas"], value: "two" },
        ]),
      ),
    ).toEqual(["karmada:controlPlane.components.scheduler.replicas"]);
    expect(
      fieldsOf(() =>
        applyEdits(current, [
          {
            key: "karmada:members",
            path: [1],
            value: { clusterName: "m1", mode: "Push", apiEndpoint: "https://x:6443" },
          },
        ]),
      ),
    ).toEqual(["karmada:members[1]"]);
  });
});
