/**
 * A component's outputs: its public readonly fields that can cross the wire — strings, numbers, booleans,
 * Outputs of those or of plain maps and arrays, plain objects of those, and references to this package's
 * components or a kubernetes provider. Skipped, with the reason in the registry's skip list: functions,
 * promises, other resources (and arrays or records of them), and plain objects that hold a secret field
 * (SDKs mark only top-level outputs secret, so a nested key would reach the state in plain text).
 */
import * as ts from "typescript";
import { MappedProperty, mapProperty } from "./objects";
import { ComponentClass } from "./program";
import { Registry } from "./registry";
import { TypeSpec } from "./spec";
import type { TypeMapper } from "./typeMapper";
import { reachableTypes } from "./walk";

/**
 * Public fields deliberately kept on the TypeScript side, and why: other languages reach them through
 * the component object itself or through a value that works in every language.
 */
export const NOT_SERVED_OUTPUTS: Readonly<Record<string, string>> = {
  "KarmadaControlPlane.caKeyPem":
    "the Karmada CA key stays in the provider process: members and addons reference the control plane itself to issue identities",
  "KarmadaControlPlane.providerKubeconfig":
    "the Pulumi providers' own identity stays in the provider process: members reference the control plane itself; users take adminKubeconfig",
  "KarmadaControlPlane.karmadaProvider":
    "a provider inside an Output cannot go into resource options in every language: build one from adminKubeconfig",
};

/** Whether a class member is a public instance field. */
function isPublicField(member: ts.ClassElement): member is ts.PropertyDeclaration {
  if (!ts.isPropertyDeclaration(member)) return false;
  const hidden = [ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.StaticKeyword];
  return (
    !(member.modifiers ?? []).some((m) => hidden.includes(m.kind)) && !ts.isPrivateIdentifier(member.name)
  );
}

/** Whether any type `spec` refers to (directly or through other types) has a secret property. */
function holdsSecret(registry: Registry, spec: TypeSpec): boolean {
  return [...reachableTypes(registry.types, [spec])].some((reached) => {
    const type = registry.types.get(reached);
    return type !== undefined && "properties" in type && Object.values(type.properties).some((p) => p.secret);
  });
}

/** `spec` without `plain` flags: outputs are never taken as inputs. */
function withoutPlain<T extends TypeSpec>(spec: T): T {
  const copy: { -readonly [K in keyof TypeSpec]: TypeSpec[K] } = { ...spec };
  delete copy.plain;
  if (spec.items) copy.items = withoutPlain(spec.items);
  if (spec.additionalProperties) copy.additionalProperties = withoutPlain(spec.additionalProperties);
  if (spec.oneOf) copy.oneOf = spec.oneOf.map(withoutPlain);
  return copy as T;
}

/** The output properties of `component`, in declaration order. */
export function componentOutputs(mapper: TypeMapper, component: ComponentClass): MappedProperty[] {
  const outputs: MappedProperty[] = [];
  for (const member of component.declaration.members.filter(isPublicField)) {
    const symbol = mapper.checker.getSymbolAtLocation(member.name);
    const property = symbol && mapProperty(mapper, symbol, component.name);
    if (!property) continue;
    const notServed = NOT_SERVED_OUTPUTS[`${component.name}.${property.name}`];
    if (notServed) {
      mapper.registry.skip(`${component.name}.${property.name}`, notServed);
      continue;
    }
    if (property.spec.plain && !property.spec.secret && holdsSecret(mapper.registry, property.spec)) {
      mapper.registry.skip(
        `${component.name}.${property.name}`,
        "plain object holding secret fields (SDKs mark only top-level outputs secret: they would reach the state in plain text)",
      );
      continue;
    }
    outputs.push({ ...property, spec: withoutPlain(property.spec) });
  }
  return outputs;
}
