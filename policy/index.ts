/**
 * The pulumi-karmada policy pack: production rules for estates, run by the engine
 * (`pulumi preview --policy-pack <this directory> [--policy-pack-config <stack>.json]`). The rules are
 * pure functions in lib/policy; this file only hands them the stack's resources. docs/policy.md lists
 * them, their levels and parameters.
 */
import { PolicyPack, PolicyResource, StackValidationPolicy, UnknownValueError } from "@pulumi/policy";
import {
  POLICY_PACK_NAME,
  POLICY_PARAMETER_SCHEMAS,
  POLICY_RULES,
  PolicyRule,
  PolicySubject,
  resolvePolicyParameters,
} from "../lib/policy";

/**
 * A copy of `value` without the values a preview cannot know yet (the SDK throws on reading one): the
 * rules see them as absent, which each rule reads as "not known yet" rather than as a finding.
 */
function known(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const read = (key: string | number): unknown => {
    try {
      return known((value as Record<string | number, unknown>)[key]);
    } catch (e) {
      if (e instanceof UnknownValueError) return undefined;
      throw e;
    }
  };
  if (Array.isArray(value)) return value.map((_, i) => read(i));
  return Object.fromEntries(Object.keys(value).map((key) => [key, read(key)]));
}

/** The engine's view of a resource, as plain data. */
function subject(resource: PolicyResource): PolicySubject {
  return {
    type: resource.type,
    name: resource.name,
    urn: resource.urn,
    props: known(resource.props) as Record<string, unknown>,
    protect: resource.opts?.protect ?? false,
    parent: resource.opts?.parent || resource.parent?.urn,
  };
}

function policy(rule: PolicyRule): StackValidationPolicy {
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.enforcementLevel,
    configSchema: {
      properties: Object.fromEntries(rule.parameters.map((p) => [p, POLICY_PARAMETER_SCHEMAS[p]])),
    } as StackValidationPolicy["configSchema"],
    validateStack: (args, reportViolation) => {
      const params = resolvePolicyParameters(args.getConfig<Record<string, unknown>>());
      for (const found of rule.check(args.resources.map(subject), params, Date.now())) {
        reportViolation(found.message, found.urn);
      }
    },
  };
}

new PolicyPack(POLICY_PACK_NAME, { policies: POLICY_RULES.map(policy) });
