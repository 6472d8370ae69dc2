/**
 * The engine floor's Pulumi program (bench/support/etcdFloor.ts runs it as its own project, through the same
 * CLI, Node.js language host and plugins as the etcd program): the graph an etcd-on-hosts `up` left,
 * resource for resource, with nothing to do. Components keep their type; tls resources become ED25519
 * keys, random ones random strings, and every remote command runs `true` over SSH on the same host
 * (with a `true` delete where ours has a delete script). The shape's revisions make the engine update
 * or replace exactly what our run updated or replaced.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import * as fs from "fs";
import { FLOOR_SHAPE_ENV, FloorShape } from "./etcdFloorShape";

const file = process.env[FLOOR_SHAPE_ENV];
if (!file) throw new Error(`${FLOOR_SHAPE_ENV} (the floor program's shape file) is not set`);
const shape = JSON.parse(fs.readFileSync(file, "utf8")) as FloorShape;

/** A component with nothing of its own: registered, then done. */
class FloorComponent extends pulumi.ComponentResource {
  constructor(type: string, name: string, opts: pulumi.ComponentResourceOptions) {
    super(type, name, {}, opts);
    this.registerOutputs({});
  }
}

const registered = new Map<string, pulumi.Resource>();
for (const c of shape.components) {
  const parent = c.parent ? registered.get(c.parent) : undefined;
  registered.set(c.name, new FloorComponent(c.type, c.name, { parent }));
}
for (const r of shape.resources) {
  const opts: pulumi.CustomResourceOptions = {
    parent: r.parent ? registered.get(r.parent) : undefined,
    dependsOn: r.dependsOn.map((d) => registered.get(d)!).filter(Boolean),
    replacementTrigger: r.replaceRevision,
  };
  let resource: pulumi.Resource;
  if (r.kind === "command") {
    const host = shape.hosts[r.host!];
    const noop = `true ${r.revision}`;
    resource = new command.remote.Command(
      r.name,
      {
        connection: {
          host: host.address,
          port: host.port,
          user: host.user,
          privateKey: pulumi.secret(host.privateKey),
          hostKey: host.hostKey,
        },
        create: noop,
        update: noop,
        delete: r.hasDelete ? "true" : undefined,
        triggers: [r.replaceRevision],
      },
      { ...opts, deleteBeforeReplace: true },
    );
  } else if (r.kind === "tls") {
    resource = new tls.PrivateKey(r.name, { algorithm: "ED25519" }, opts);
  } else {
    resource = new random.RandomString(r.name, { length: 12, special: false }, opts);
  }
  registered.set(r.name, resource);
}
