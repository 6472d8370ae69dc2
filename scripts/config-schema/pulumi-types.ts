/**
 * Teaches ts-json-schema-generator what a YAML stack file can hold in place of Pulumi types: an
 * `Input<T>` or `Output<T>` is written as the plain `T` (the engine reads config values, never
 * Outputs). A resource or component instance cannot be written at all: it becomes a marker that
 * {@link assertNoResources} turns into an error naming the type if it reaches the schema (the stack
 * config must leave it out, as `StackConfig` picks the control plane's args without `etcd`).
 */
import ts from "typescript";
import {
  AnnotatedType,
  AnyType,
  BaseType,
  Context,
  NodeParser,
  SubNodeParser,
} from "ts-json-schema-generator";
import { SchemaNode, walkSchema } from "./walk";

/** Annotation marking where a resource instance stood; never left in a finished schema. */
export const RESOURCE_MARKER = "x-pulumi-resource";

/** Pulumi's wrappers around a value that stack config holds as the value itself. */
const PLAIN_VALUE_WRAPPERS = ["Input", "Output", "OutputInstance"];
/** Pulumi's resource classes: instances of them (or of subclasses) exist only inside a program. */
const RESOURCE_CLASSES = ["Resource", "CustomResource", "ComponentResource", "ProviderResource"];

const isPulumiDeclaration = (declaration: ts.Declaration | undefined): boolean =>
  /[\\/]@pulumi[\\/]pulumi[\\/]/.test(declaration?.getSourceFile().fileName ?? "");

/** The symbol a type reference names, aliases (imports) followed. */
function referencedSymbol(checker: ts.TypeChecker, node: ts.TypeReferenceNode): ts.Symbol | undefined {
  const symbol = checker.getSymbolAtLocation(node.typeName);
  return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** Whether `symbol` is a class that is, or extends, one of Pulumi's resource classes. */
function isResourceClass(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  if (!(symbol.flags & ts.SymbolFlags.Class)) return false;
  const pending: ts.Type[] = [checker.getDeclaredTypeOfSymbol(symbol)];
  while (pending.length > 0) {
    const type = pending.pop()!;
    const declaration = type.getSymbol()?.declarations?.[0];
    if (RESOURCE_CLASSES.includes(type.getSymbol()?.name ?? "") && isPulumiDeclaration(declaration))
      return true;
    if (type.isClassOrInterface()) pending.push(...checker.getBaseTypes(type));
  }
  return false;
}

/** Parser for references to Pulumi types; the generator's own parsers handle everything else. */
export class PulumiTypeParser implements SubNodeParser {
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly childParser: NodeParser,
  ) {}

  supportsNode(node: ts.Node): boolean {
    if (!ts.isTypeReferenceNode(node)) return false;
    const symbol = referencedSymbol(this.checker, node);
    if (!symbol) return false;
    const wrapper =
      PLAIN_VALUE_WRAPPERS.includes(symbol.name) && isPulumiDeclaration(symbol.declarations?.[0]);
    return wrapper || isResourceClass(this.checker, symbol);
  }

  createType(node: ts.TypeReferenceNode, context: Context): BaseType {
    const symbol = referencedSymbol(this.checker, node)!;
    if (PLAIN_VALUE_WRAPPERS.includes(symbol.name) && node.typeArguments?.length) {
      return this.childParser.createType(node.typeArguments[0], context);
    }
    // not an error yet: Pick/Omit parse the whole interface before dropping the field
    return new AnnotatedType(new AnyType(), { [RESOURCE_MARKER]: symbol.name }, false);
  }
}

/** Throws when a resource instance reached the schema: a stack file could not hold the field. */
export function assertNoResources(schema: SchemaNode): void {
  walkSchema(schema, (node, path) => {
    if (node[RESOURCE_MARKER] !== undefined) {
      throw new Error(
        `${path} holds a Pulumi resource (${String(node[RESOURCE_MARKER])}): a stack file cannot hold one, ` +
          "so the stack config type must leave it out (Omit/Pick) and the program wire it",
      );
    }
  });
}
