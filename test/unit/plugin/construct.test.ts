/**
 * The component provider's Construct under Pulumi mocks: the type token picks the real component, the
 * state holds exactly the outputs the schema declares, references between components resolve to the
 * instance built earlier in the same process, and an unknown type or reference fails with a message.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { EtcdCluster } from "../../../components/etcdCluster";
import { SERVED_COMPONENTS } from "../../../provider/components";
import { ServedSchema, componentState, constructComponent } from "../../../provider/construct";
import { componentAt, registerComponentModule } from "../../../provider/liveComponents";
import { recordResources, settle } from "../../support/mocks";

const SCHEMA: ServedSchema = {
  resources: {
    "karmada:index:EtcdCluster": { properties: { clientUrls: {}, caCertPem: {}, snapshotCommand: {} } },
  },
};
const ETCD_ARGS = { mode: "inCluster", inCluster: { replicas: 1 } };

describe("component provider Construct (mocks)", () => {
  let host: k8s.Provider;
  beforeEach(() => {
    recordResources();
    host = new k8s.Provider("host", { kubeconfig: "apiVersion: v1\nkind: Config\n" });
  });

  it("serves each component under the type token it registers with", async () => {
    for (const [type, Component] of Object.entries(SERVED_COMPONENTS)) {
      expect(type).toBe(`karmada:index:${Component.name}`);
    }
    const { urn } = await constructComponent(SCHEMA, "etcd", "karmada:index:EtcdCluster", ETCD_ARGS, {
      providers: { kubernetes: host },
    });
    expect(urn).toMatch(/::karmada:index:EtcdCluster::etcd$/);
  });

  it("hands back the declared outputs the component has, and nothing else", async () => {
    const { urn, state } = await constructComponent(SCHEMA, "etcd", "karmada:index:EtcdCluster", ETCD_ARGS, {
      providers: { kubernetes: host },
    });
    // snapshotCommand is declared but absent in-cluster; clientKeyPem exists but is not declared
    expect(Object.keys(state).sort()).toEqual(["caCertPem", "clientUrls"]);
    const etcd = componentAt(urn);
    expect(etcd).toBeInstanceOf(EtcdCluster);
    expect(state.clientUrls).toEqual((etcd as EtcdCluster).clientUrls);
    await settle(etcd);
  });

  it("resolves a reference to a component built earlier to that very instance", async () => {
    registerComponentModule("0.1.0");
    const { urn } = await constructComponent(SCHEMA, "etcd", "karmada:index:EtcdCluster", ETCD_ARGS, {
      providers: { kubernetes: host },
    });
    const reference = {
      [pulumi.runtime.specialSigKey]: pulumi.runtime.specialResourceSig,
      urn,
      packageVersion: "0.1.0",
    };
    expect(pulumi.runtime.deserializeProperty(reference)).toBe(componentAt(urn));
  });

  it("refuses a reference to a component this process did not build", () => {
    expect(() => componentAt("urn:pulumi:other::proj::karmada:index:EtcdCluster::etcd")).toThrow(
      /is not a component built in this deployment/,
    );
  });

  it("refuses an unknown type, naming the ones it serves", async () => {
    await expect(constructComponent(SCHEMA, "x", "karmada:index:Nope", {}, {})).rejects.toThrow(
      /unknown resource type karmada:index:Nope: this package serves karmada:index:EtcdCluster, /,
    );
  });

  it("builds nothing for a component the schema does not declare", async () => {
    const records = recordResources();
    await expect(
      constructComponent(SCHEMA, "cp", "karmada:index:KarmadaControlPlane", {}, {}),
    ).rejects.toThrow(/unknown resource type/);
    expect(records).toEqual([]);
  });

  it("keeps the component's configuration errors, before anything registers", async () => {
    const records = recordResources();
    await expect(
      constructComponent(
        SCHEMA,
        "etcd",
        "karmada:index:EtcdCluster",
        { mode: "inKluster" },
        {
          providers: { kubernetes: host },
        },
      ),
    ).rejects.toThrow(/mode/);
    expect(records.filter((r) => r.type.startsWith("karmada:"))).toEqual([]);
  });

  it("componentState reads only declared keys", () => {
    const fake = { a: 1, b: undefined, c: 3 } as unknown as pulumi.ComponentResource;
    expect(componentState({ resources: { t: { properties: { a: {}, b: {} } } } }, "t", fake)).toEqual({
      a: 1,
    });
  });
});
