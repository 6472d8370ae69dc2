/**
 * `npm run synth -- Pulumi.<env>.yaml [outDir]`: writes the plain YAML of a stack's estate for GitOps
 * users (host-cluster.yaml, karmada-apiserver.yaml) without running Pulumi. Secrets are not rendered.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { synthesizeEstate } from "../lib/manifests/synth";

const [stackFile, outDir = "out"] = process.argv.slice(2);
if (!stackFile) {
  console.error("usage: npm run synth -- Pulumi.<env>.yaml [outDir]");
  process.exit(2);
}
const config = parse(readFileSync(stackFile, "utf8"))?.config ?? {};
const result = synthesizeEstate(
  config["karmada:controlPlane"] ?? {},
  config["karmada:etcd"]?.inCluster ?? {},
);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "host-cluster.yaml"), result.hostCluster);
writeFileSync(join(outDir, "karmada-apiserver.yaml"), result.karmadaApiServer);
console.log(`wrote ${join(outDir, "host-cluster.yaml")} and ${join(outDir, "karmada-apiserver.yaml")}`);
console.log("Secrets are not rendered; create them from your PKI. Fill these placeholders:");
for (const line of result.placeholders) console.log(`  ${line}`);
