/**
 * The part of the Pulumi package schema this generator writes (pkg/codegen/schema/pulumi.json in
 * pulumi/pulumi): types, properties, object and enum types, component resources.
 */

/** A reference to a type: primitive, array, map, union, or `$ref` to a named type or resource. */
export interface TypeSpec {
  readonly type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  readonly items?: TypeSpec;
  readonly additionalProperties?: TypeSpec;
  readonly oneOf?: readonly TypeSpec[];
  readonly $ref?: string;
  /** The value is not an eventual (Output) value: SDKs take it as it is. */
  readonly plain?: boolean;
}

/** A property of an object type or resource. */
export interface PropertySpec extends TypeSpec {
  readonly description?: string;
  readonly default?: string | number | boolean;
  readonly secret?: boolean;
}

/** An object type (`type: object`). */
export interface ObjectTypeSpec {
  readonly type: "object";
  readonly description?: string;
  readonly properties: Readonly<Record<string, PropertySpec>>;
  readonly required?: readonly string[];
}

/** One value of an enum type. */
export interface EnumValueSpec {
  readonly value: string;
  readonly name?: string;
  readonly description?: string;
}

/** An enum type of strings. */
export interface EnumTypeSpec {
  readonly type: "string";
  readonly description?: string;
  readonly enum: readonly EnumValueSpec[];
}

export type ComplexTypeSpec = ObjectTypeSpec | EnumTypeSpec;

/** A component resource. */
export interface ResourceSpec {
  readonly isComponent: true;
  readonly description?: string;
  readonly inputProperties: Readonly<Record<string, PropertySpec>>;
  readonly requiredInputs: readonly string[];
  readonly properties: Readonly<Record<string, PropertySpec>>;
  readonly required: readonly string[];
}

/** A package this one refers to (`$ref: "/<name>/v<version>/schema.json#/…"`). */
export interface DependencySpec {
  readonly name: string;
  readonly version: string;
}

/** The package schema. */
export interface PackageSpec {
  readonly name: string;
  readonly displayName: string;
  readonly version: string;
  readonly description: string;
  readonly license: string;
  readonly repository?: string;
  readonly keywords: readonly string[];
  readonly dependencies?: readonly DependencySpec[];
  readonly language: Readonly<Record<string, unknown>>;
  readonly resources: Readonly<Record<string, ResourceSpec>>;
  readonly types: Readonly<Record<string, ComplexTypeSpec>>;
}

/** `$ref` of a type of this package. */
export const typeRef = (token: string): string => `#/types/${token}`;

/** `$ref` of a resource of this package. */
export const resourceRef = (token: string): string => `#/resources/${token}`;

/** The built-in type of any value (free-form objects, `unknown`). */
export const ANY_REF = "pulumi.json#/Any";
