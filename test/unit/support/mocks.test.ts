import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import { find, recordResources, settle } from "../../support/mocks";

describe("recording mocks", () => {
  it("records parent, dependencies, secrets and replacement triggers of real register requests", async () => {
    const records = recordResources();
    class Parent extends pulumi.ComponentResource {
      constructor(name: string) {
        super("test:index:Parent", name);
      }
    }
    const parent = new Parent("p");
    const first = new random.RandomString("first", { length: 8 }, { parent });
    const second = new random.RandomPassword(
      "second",
      { length: 8, keepers: { k: pulumi.secret("hidden") } },
      { parent, dependsOn: [first], replacementTrigger: "gen-1", retainOnDelete: true, deletedWith: parent },
    );
    await settle(parent, first, second);
    const rec = find(records, "random:index/randomPassword:RandomPassword", "second");
    expect(rec.parentUrn).toContain("test:index:Parent::p");
    expect(rec.dependencies).toEqual([find(records, "RandomString", "first").urn]);
    expect(rec.secretPaths).toContain("keepers.k");
    expect(rec.inputs.keepers.k).toBe("hidden");
    expect(rec.replacementTrigger).toBe("gen-1");
    expect(rec.retainOnDelete).toBe(true);
    expect(rec.deletedWith).toBe(find(records, "test:index:Parent", "p").urn);
    expect(find(records, "RandomString", "first").deletedWith).toBe("");
    expect(find(records, "RandomString", "first").secretPaths).toEqual([]);
  });
});
