import * as pulumi from "@pulumi/pulumi";
import { applyObjects } from "../../lib/kube/apply";
import { createSecret } from "../../lib/kube/secrets";
import { apiAccessFromKubeconfig } from "../../lib/kubeconfig/access";
import { agentIdentityObjects } from "../../lib/members/bootstrap";
import { memberObjects } from "../../lib/members/objects";
import { adoptingKarmadaProvider, createClusterObject } from "./cluster";
import { MemberContext, karmadaOptions, memberOptions } from "./context";
import { createKarmadaCredentialSecrets, createMemberCredentials } from "./credentials";
import { DynamicProviderHost } from "../dynamicResource";
import { ExecutionSpaceDrain } from "./drain";
import { agentIdentity } from "./identity";

/** What a pull registration created. */
export interface PullResources {
  readonly memberSide: pulumi.Resource[];
  readonly karmadaSide: pulumi.Resource[];
  readonly cluster: pulumi.CustomResource;
  /** Deletes the member's Works, and waits for the agent to finalize them, before the Cluster goes. */
  readonly drain: pulumi.CustomResource;
}

/**
 * Pull mode, what `karmadactl register` does: inside Karmada the agent's RBAC (and its execution
 * namespace); the agent identity (direct or bootstrap token); in the member the kubeconfig Secret,
 * ServiceAccount, role and the karmada-agent Deployment — plus, when the agent reports credentials,
 * the ServiceAccounts and token Secrets it would otherwise create itself (so that removal leaves none
 * behind), and Karmada's copies of those tokens (`<cluster>`, `<cluster>-impersonator` in
 * karmada-cluster): the agent only creates missing copies, never refreshes them, so a rotation would
 * leave Karmada with revoked tokens. The agent adopts ours and makes them owned by the Cluster. The
 * Cluster object is declared too, with every field the agent writes (lib/members/cluster.ts: the agent
 * cannot update it), after the agent (which may have registered it already: the adopting provider takes
 * it over), so that Pulumi deletes it before the agent. Before it goes, the drain (components/members/drain.ts) deletes
 * the Works and waits for the agent to finalize them, as `karmadactl unregister` does: once the Cluster
 * is deleting, Karmada removes the execution namespace and with it the agent's work Role.
 */
export function registerPullMember(ctx: MemberContext): PullResources {
  const identity = agentIdentity(ctx, agentIdentityObjects(ctx.settings, Date.now()));
  const image = ctx.controlPlane.settings.components["karmada-agent"];
  const objects = memberObjects(ctx.settings, {
    image: image.image,
    imagePullPolicy: image.imagePullPolicy,
    awaitRollout: ctx.controlPlane.settings.awaitWorkloads,
    rotationTrigger: identity.rotationTrigger,
  });
  const agent = objects.agent!;

  const karmadaPrefix = `${ctx.name}-karmada`;
  const executionNamespace = applyObjects(
    karmadaPrefix,
    objects.karmada.executionNamespace,
    karmadaOptions(ctx),
  );
  const rbac = applyObjects(karmadaPrefix, objects.karmada.rbac, karmadaOptions(ctx, executionNamespace));

  const memberPrefix = `${ctx.name}-member`;
  const namespace = applyObjects(memberPrefix, agent.namespace, memberOptions(ctx));
  const access = applyObjects(memberPrefix, agent.access, memberOptions(ctx, namespace));
  const kubeconfigSecret = createSecret(
    `${memberPrefix}-secret-${agent.kubeconfigSecret.name}`,
    { ...agent.kubeconfigSecret, data: { [agent.kubeconfigSecret.name]: identity.kubeconfig } },
    memberOptions(ctx, namespace),
  );
  // the tokens the agent reports, and Karmada's copies of them, written before the agent starts
  const credentials = objects.credentials ? createMemberCredentials(ctx, objects.credentials) : undefined;
  const reported = credentials?.resources ?? [];
  const karmadaSecrets = credentials
    ? createKarmadaCredentialSecrets(ctx, objects.tokenCopies!, credentials, undefined)
    : [];
  const deployment = applyObjects(
    memberPrefix,
    agent.deployment,
    memberOptions(ctx, [
      ...access,
      kubeconfigSecret,
      ...reported,
      ...karmadaSecrets,
      ...rbac,
      ...identity.resources,
    ]),
  );

  const memberSide = [...namespace, ...access, kubeconfigSecret, ...reported, ...deployment];
  const cluster = createClusterObject(ctx, objects.cluster, {
    provider: adoptingKarmadaProvider(ctx),
    dependsOn: [...memberSide, ...karmadaSecrets, ...rbac, ...executionNamespace],
  });
  const drain = new ExecutionSpaceDrain(
    `${ctx.name}-karmada-drain`,
    {
      clusterName: ctx.settings.clusterName,
      namespace: ctx.settings.names.executionNamespace,
      api: ctx.controlPlane.providerKubeconfig.apply(apiAccessFromKubeconfig),
      releaseAtOnce: ctx.settings.forceRemove,
    },
    {
      parent: ctx.parent,
      provider: new DynamicProviderHost(`${ctx.name}-karmada-drain`, { parent: ctx.parent }),
      dependsOn: [cluster],
    },
  );
  return {
    memberSide,
    karmadaSide: [...executionNamespace, ...rbac, ...karmadaSecrets, ...identity.resources],
    cluster,
    drain,
  };
}
