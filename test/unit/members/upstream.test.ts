/**
 * Our names and agent flags against karmadactl's own source (the upstream Karmada module, fetched by the
 * unit globalSetup), so that a cluster registered by either tool can be removed by the other.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveMemberSettings } from "../../../lib/members/resolve";
import { AGENT_GROUP, AGENT_OBJECTS, BOOTSTRAP_TOKEN, memberObjectNames } from "../../../lib/members/names";
import { agentFlags } from "../../../lib/members/pull";
import { KARMADA_MODULE, describeUpstream, upstreamModuleDir } from "../../support/upstream";

const source = (path: string) => readFileSync(join(upstreamModuleDir(KARMADA_MODULE), path), "utf8");
/** The string constant `name = "value"` of a Go file. */
const constant = (text: string, name: string) => new RegExp(`${name}\\s*=\\s*"([^"]*)"`).exec(text)?.[1];
/** The format string returned by Go function `name`. */
const format = (text: string, name: string) =>
  new RegExp(`func ${name}\\([^)]*\\) string \\{\\s*return fmt\\.Sprintf\\("([^"]*)"(?:, "([^"]*)")?`).exec(
    text,
  );

describeUpstream(`names and flags match karmadactl ${KARMADA_MODULE.version}`, [KARMADA_MODULE], () => {
  const names = memberObjectNames("member1");

  it("uses join's names for ServiceAccounts, roles, Secrets and the execution namespace", () => {
    const go = source("pkg/util/names/names.go");
    const sa = format(go, "GenerateServiceAccountName")!;
    expect(sa[1].replace("%s", sa[2]).replace("%s", "member1")).toBe(names.serviceAccount);
    expect(sa[1].replace("%s", sa[2]).replace("%s", "impersonator")).toBe(names.impersonatorServiceAccount);
    expect(format(go, "GenerateRoleName")![1].replace("%s", names.serviceAccount)).toBe(names.clusterRole);
    expect(format(go, "GenerateImpersonationSecretName")![1].replace("%s", "member1")).toBe(
      names.impersonatorSecret,
    );
    expect(`${constant(go, "ExecutionSpacePrefix")}member1`).toBe(names.executionNamespace);
    expect(constant(go, "NamespaceKarmadaCluster")).toBe("karmada-cluster");
  });

  it("uses register's names for the agent, its kubeconfig, identity and Karmada-side RBAC", () => {
    const go = source("pkg/karmadactl/register/register.go");
    expect(constant(go, "KarmadaKubeconfigName")).toBe(AGENT_OBJECTS.kubeconfigSecret);
    expect(constant(go, "KarmadaAgentServiceAccountName")).toBe(AGENT_OBJECTS.serviceAccount);
    expect(constant(go, "ClusterPermissionGroups")).toBe(AGENT_GROUP);
    expect(`${constant(go, "ClusterPermissionPrefix")}member1`).toBe(names.agentUser);
    for (const name of [names.agentClusterRole, names.agentSecretRole, names.agentWorkRole]) {
      expect(go).toContain(`"${name.replace("member1", "%s")}"`);
    }
    expect(go).toContain(
      `"--karmada-kubeconfig=${AGENT_OBJECTS.kubeconfigDir}/${AGENT_OBJECTS.kubeconfigSecret}"`,
    );
    const tokenGo = source("pkg/karmadactl/util/bootstraptoken/bootstraptoken.go");
    expect(tokenGo).toContain(`"${BOOTSTRAP_TOKEN.group}"`);
  });

  it("passes the agent every flag register passes, and only flags the agent knows", () => {
    const register = source("pkg/karmadactl/register/register.go");
    const theirs = [...register.matchAll(/"--([a-z-]+)=/g)].map((m) => m[1]);
    const settings = resolveMemberSettings({
      clusterName: "member1",
      mode: "Pull",
      apiEndpoint: "https://m:6443",
    });
    const ours = agentFlags(settings, "karmada-system").map((f) => f.slice(2, f.indexOf("=")));
    const agentFlagsGo = source("cmd/agent/app/options/options.go");
    const known = new Set([...agentFlagsGo.matchAll(/Var\([^,]+, "([a-z-]+)"/g)].map((m) => m[1]));
    for (const flag of new Set(theirs.filter((f) => f !== "v"))) {
      if (known.has(flag)) expect(ours).toContain(flag);
    }
    for (const flag of ours.filter((f) => f !== "v")) expect(known).toContain(flag);
  });
});
