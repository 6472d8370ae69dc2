/**
 * Questions about TypeScript types the mapping asks: is it an Output, an Input's promise, a resource,
 * a function, a record over literal keys, a literal union …
 */
import * as ts from "typescript";

/** Whether `symbol` is declared by the Pulumi SDK (`@pulumi/pulumi`). */
function fromPulumiSdk(symbol: ts.Symbol | undefined): boolean {
  const file = symbol?.declarations?.[0]?.getSourceFile().fileName ?? "";
  return /[\\/]@pulumi[\\/]pulumi[\\/]/.test(file);
}

/** The declaring package of `symbol` (`@pulumi/kubernetes`), or undefined for this repository's code. */
export function declaringPackage(symbol: ts.Symbol | undefined): string | undefined {
  const file = symbol?.declarations?.[0]?.getSourceFile().fileName ?? "";
  return /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)?.[1].replace(/\\/g, "/");
}

/** `T` of `OutputInstance<T>` or `Output<T>` (`OutputInstance<T> & Lifted<T>`), else undefined. */
function outputInner(type: ts.Type, checker: ts.TypeChecker): ts.Type | undefined {
  const parts = type.isIntersection() ? type.types : [type];
  const instance = parts.find(
    (t) => t.getSymbol()?.name === "OutputInstance" && fromPulumiSdk(t.getSymbol()),
  );
  return instance ? checker.getTypeArguments(instance as ts.TypeReference)[0] : undefined;
}

/** `T` of `Promise<T>`, else undefined. */
export function promiseInner(type: ts.Type, checker: ts.TypeChecker): ts.Type | undefined {
  if (type.getSymbol()?.name !== "Promise") return undefined;
  return checker.getTypeArguments(type as ts.TypeReference)[0];
}

/** A type after `pulumi.Input`/`pulumi.Output` wrappers are taken off. */
export interface Unwrapped {
  /** The distinct member types, `undefined`/`null` dropped, unions flattened. */
  readonly members: readonly ts.Type[];
  /** Whether the value may be eventual (an `Input` or `Output`). */
  readonly eventual: boolean;
}

/**
 * Flattens `type` into its members, unwrapping Outputs, and Promises where an Output stands beside them
 * (`pulumi.Input<T>` = `T | Promise<T> | OutputInstance<T>`). A Promise on its own stays: it cannot
 * cross the wire.
 */
export function unwrapEventual(type: ts.Type, checker: ts.TypeChecker): Unwrapped {
  const members: ts.Type[] = [];
  let eventual = false;
  const visit = (t: ts.Type): void => {
    if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)) return;
    if (t.isUnion()) {
      const isInput = t.types.some((m) => outputInner(m, checker) !== undefined);
      for (const m of t.types) visit((isInput && promiseInner(m, checker)) || m);
      return;
    }
    const inner = outputInner(t, checker);
    if (inner) {
      eventual = true;
      visit(inner);
      return;
    }
    if (!members.includes(t)) members.push(t);
  };
  visit(type);
  return { members, eventual };
}

/** Whether `type` is a Pulumi resource (a class deriving from the SDK's `Resource`). */
export function isResource(type: ts.Type, checker: ts.TypeChecker): boolean {
  const symbol = type.getSymbol();
  if (symbol?.name === "Resource" && fromPulumiSdk(symbol)) return true;
  // a base class with type arguments (`ComponentResource<any>`) is a reference to its generic class
  const isReference =
    (type.flags & ts.TypeFlags.Object) !== 0 &&
    ((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) !== 0;
  const declared = isReference ? (type as ts.TypeReference).target : type;
  return (
    declared.isClassOrInterface() && checker.getBaseTypes(declared).some((base) => isResource(base, checker))
  );
}

/** Whether `type` is a function (call signatures and nothing else). */
export function isFunction(type: ts.Type): boolean {
  return type.getCallSignatures().length > 0 && type.getProperties().length === 0;
}

/** Element types of an array, readonly array or tuple; undefined for anything else. */
export function arrayElements(type: ts.Type, checker: ts.TypeChecker): readonly ts.Type[] | undefined {
  if (checker.isArrayType(type) || checker.isTupleType(type))
    return checker.getTypeArguments(type as ts.TypeReference);
  return undefined;
}

/** The value type of a string index signature (`Record<string, T>`, `{ [key: string]: T }`), if any. */
export function indexValueType(type: ts.Type, checker: ts.TypeChecker): ts.Type | undefined {
  return checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String)?.type;
}

/**
 * Whether `type` is a record over literal keys (`Record<"a" | "b", T>`, possibly `Partial`): properties
 * that no declaration introduces.
 */
export function isKeyedRecord(type: ts.Type): boolean {
  const properties = type.getProperties();
  return properties.length > 0 && properties.every((p) => (p.declarations ?? []).length === 0);
}

export const isStringLike = (t: ts.Type): boolean => (t.flags & ts.TypeFlags.StringLike) !== 0;
export const isNumberLike = (t: ts.Type): boolean => (t.flags & ts.TypeFlags.NumberLike) !== 0;
export const isBooleanLike = (t: ts.Type): boolean => (t.flags & ts.TypeFlags.BooleanLike) !== 0;
export const isAnyOrUnknown = (t: ts.Type): boolean =>
  (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;

/** Whether `symbol` is an optional property (`x?:`) or its type admits `undefined`. */
export function isOptional(symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  if (symbol.flags & ts.SymbolFlags.Optional) return true;
  const type = checker.getTypeOfSymbol(symbol);
  return type.isUnion() && type.types.some((t) => (t.flags & ts.TypeFlags.Undefined) !== 0);
}

/** The type node a property declares, if it has one. */
export function declaredTypeNode(symbol: ts.Symbol): ts.TypeNode | undefined {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  return declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration))
    ? declaration.type
    : undefined;
}

/**
 * The alias a type node names (`mode?: EtcdMode` → `EtcdMode`), looking through `pulumi.Input<…>` and
 * `pulumi.Output<…>`; the checker forgets aliases of literal unions it interned under another name.
 */
export function aliasOfNode(node: ts.TypeNode | undefined, checker: ts.TypeChecker): ts.Symbol | undefined {
  if (!node || !ts.isTypeReferenceNode(node)) return undefined;
  const symbol = checker.getSymbolAtLocation(node.typeName);
  const target = symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  if (!target) return undefined;
  if ((target.name === "Input" || target.name === "Output") && fromPulumiSdk(target)) {
    return aliasOfNode(node.typeArguments?.[0], checker);
  }
  return target.flags & ts.SymbolFlags.TypeAlias ? target : undefined;
}

/** `file:line` of a symbol's declaration, relative to `root`. */
export function locationOf(symbol: ts.Symbol, root: string): string | undefined {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (!declaration) return undefined;
  const file = declaration.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(declaration.getStart());
  const relative = file.fileName.startsWith(root) ? file.fileName.slice(root.length + 1) : file.fileName;
  return `${relative}:${line + 1}`;
}
