/**
 * The package schema of the component provider, generated from the components' TypeScript: each
 * component is a resource (`isComponent`) whose inputs are the fields of its constructor's Args type and
 * whose outputs are its public fields that can cross the wire (outputs.ts); the types they use become
 * the package's object and enum types (typeMapper.ts).
 */
import { describe, docComment } from "./docs";
import { MappedProperty, mapProperty } from "./objects";
import { componentOutputs } from "./outputs";
import { PackageManifest, packageFields, readManifest } from "./package";
import { COMPONENT_FILES, ComponentClass, ComponentProgram, loadComponents } from "./program";
import { Registry, SkippedField } from "./registry";
import { kubernetesPackage } from "./resources";
import { ComplexTypeSpec, PackageSpec, ResourceSpec } from "./spec";
import { TypeMapper } from "./typeMapper";
import { reachableTypes } from "./walk";
import { tokenName } from "./naming";

/** An input field (of a component or of a type its inputs use) without a description. */
export interface UndocumentedField {
  /** `<Component>.<field>` or `<TypeName>.<field>`. */
  readonly field: string;
  /** `file:line` of its declaration. */
  readonly location?: string;
}

/** What a generation produced. */
export interface GeneratedSchema {
  readonly schema: PackageSpec;
  /** Fields left out (functions, promises, resources without schema type …), with the reason. */
  readonly skipped: readonly SkippedField[];
  readonly undocumented: readonly UndocumentedField[];
}

export interface GenerateOptions {
  /** Component files relative to `root`. @default COMPONENT_FILES */
  readonly files?: readonly string[];
  /** The compiled sources, when the caller has them already. @default loadComponents(root, files) */
  readonly program?: ComponentProgram;
  /** Throw, listing them, when an input field has no description. @default true */
  readonly requireDocs?: boolean;
  /** @default package.json of `root` */
  readonly manifest?: PackageManifest;
}

/** Thrown when input fields have no description (and docs are required). */
export class UndocumentedFieldsError extends Error {
  constructor(readonly fields: readonly UndocumentedField[]) {
    super(
      `${fields.length} input field(s) have no doc comment (document them, or pass --allow-undocumented):\n` +
        fields.map((f) => `  ${f.field}${f.location ? ` (${f.location})` : ""}`).join("\n"),
    );
  }
}

const defined = <T>(value: T | undefined): value is T => value !== undefined;

/** The resource of one component, and its input properties (for the doc check). */
function componentResource(mapper: TypeMapper, component: ComponentClass) {
  const inputs = mapper.checker
    .getPropertiesOfType(component.argsType)
    .map((p) => mapProperty(mapper, p, component.name))
    .filter(defined);
  const outputs = componentOutputs(mapper, component);
  const names = (properties: MappedProperty[]) => properties.filter((p) => p.required).map((p) => p.name);
  const description = describe(docComment(component.symbol, mapper.checker).summary, []);
  const resource: ResourceSpec = {
    isComponent: true,
    ...(description ? { description } : {}),
    inputProperties: Object.fromEntries(inputs.map((p) => [p.name, p.spec])),
    requiredInputs: names(inputs),
    properties: Object.fromEntries(outputs.map((p) => [p.name, p.spec])),
    required: names(outputs),
  };
  return { resource, inputs };
}

/** Input fields without a description: the components' own and those of every type their inputs reach. */
function undocumentedInputs(
  registry: Registry,
  inputs: ReadonlyMap<string, readonly MappedProperty[]>,
): UndocumentedField[] {
  const own = [...inputs].flatMap(([component, properties]) =>
    properties
      .filter((p) => !p.doc.documented)
      .map((p) => ({ field: `${component}.${p.name}`, location: p.doc.location })),
  );
  const roots = [...inputs.values()].flatMap((properties) => properties.map((p) => p.spec));
  const nested = [...reachableTypes(registry.types, roots)].flatMap((typeToken) => {
    const type = registry.types.get(typeToken);
    if (!type || !("properties" in type)) return [];
    return Object.keys(type.properties)
      .map((property) => `${tokenName(typeToken)}.${property}`)
      .filter((field) => registry.fieldDocs.get(field)?.documented === false)
      .map((field) => ({ field, location: registry.fieldDocs.get(field)?.location }));
  });
  return [...own, ...nested].sort((a, b) => (a.field < b.field ? -1 : 1));
}

/** Generates the package schema from the components under `root` (the repository). */
export function generatePackageSchema(root: string, options: GenerateOptions = {}): GeneratedSchema {
  const program = options.program ?? loadComponents(root, options.files ?? COMPONENT_FILES);
  const kubernetes = kubernetesPackage(root);
  const registry = new Registry();
  const mapper = new TypeMapper(
    program.checker,
    registry,
    {
      components: new Map(program.components.map((c) => [c.symbol, c.token])),
      providers: new Map([[kubernetes.npm, kubernetes]]),
    },
    root,
  );
  const resources: Record<string, ResourceSpec> = {};
  const inputs = new Map<string, readonly MappedProperty[]>();
  for (const component of program.components) {
    const built = componentResource(mapper, component);
    resources[component.token] = built.resource;
    inputs.set(component.name, built.inputs);
  }
  const undocumented = undocumentedInputs(registry, inputs);
  if (undocumented.length > 0 && options.requireDocs !== false)
    throw new UndocumentedFieldsError(undocumented);
  // types only skipped fields used are left out
  const used = reachableTypes(
    registry.types,
    Object.values(resources).flatMap((r) => [
      ...Object.values(r.inputProperties),
      ...Object.values(r.properties),
    ]),
  );
  const types: Record<string, ComplexTypeSpec> = Object.fromEntries(
    [...registry.types].filter(([t]) => used.has(t)),
  );
  const dependencies = [...registry.dependencies.values()];
  const schema: PackageSpec = {
    ...packageFields(options.manifest ?? readManifest(root)),
    ...(dependencies.length > 0 ? { dependencies } : {}),
    resources,
    types,
  };
  return { schema, skipped: registry.skipped, undocumented };
}
