/**
 * The components as the TypeScript compiler sees them: each class, its type token (the string it passes
 * to `super`), and the type of its constructor's `args`.
 */
import * as path from "path";
import * as ts from "typescript";

/** The files declaring the served components, relative to the repository root. */
export const COMPONENT_FILES: readonly string[] = [
  "components/etcdCluster.ts",
  "components/karmadaControlPlane.ts",
  "components/memberRegistration.ts",
  "components/addon.ts",
];

/** One component class. */
export interface ComponentClass {
  /** Class name, e.g. `EtcdCluster`. */
  readonly name: string;
  /** Type token from `super("karmada:index:EtcdCluster", …)`. */
  readonly token: string;
  readonly declaration: ts.ClassDeclaration;
  readonly symbol: ts.Symbol;
  /** The type of the constructor's second parameter (`args`). */
  readonly argsType: ts.Type;
}

/** The analysed sources: the compiler's checker and the component classes, in {@link COMPONENT_FILES} order. */
export interface ComponentProgram {
  /** The compiled sources: the component files and everything they import. */
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  readonly root: string;
  readonly components: readonly ComponentClass[];
}

/** The compiler options of the repository's tsconfig.json. */
function compilerOptions(root: string): ts.CompilerOptions {
  const file = path.join(root, "tsconfig.json");
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error)
    throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root).options;
}

/** The token a constructor passes to `super(token, …)`, if it is a string literal. */
function superToken(constructor: ts.ConstructorDeclaration): string | undefined {
  let found: string | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.SuperKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found = node.arguments[0].text;
    }
    if (found === undefined) ts.forEachChild(node, visit);
  };
  ts.forEachChild(constructor, visit);
  return found;
}

/** The classes of `file` whose constructor calls `super` with a type token. */
function componentsIn(file: ts.SourceFile, checker: ts.TypeChecker): ComponentClass[] {
  const found: ComponentClass[] = [];
  for (const statement of file.statements) {
    if (!ts.isClassDeclaration(statement) || !statement.name) continue;
    const constructor = statement.members.find(ts.isConstructorDeclaration);
    const typeToken = constructor && superToken(constructor);
    const argsParameter = constructor?.parameters[1];
    if (!typeToken || !argsParameter) continue;
    found.push({
      name: statement.name.text,
      token: typeToken,
      declaration: statement,
      symbol: checker.getSymbolAtLocation(statement.name)!,
      argsType: checker.getTypeAtLocation(argsParameter),
    });
  }
  return found;
}

/** Compiles `componentFiles` under `root` (type information only) and finds the components. */
export function loadComponents(
  root: string,
  componentFiles: readonly string[] = COMPONENT_FILES,
): ComponentProgram {
  const files = componentFiles.map((f) => path.join(root, f));
  const program = ts.createProgram(files, { ...compilerOptions(root), noEmit: true });
  const checker = program.getTypeChecker();
  const components = files.flatMap((file) => {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`component file not found: ${file}`);
    const inFile = componentsIn(source, checker);
    if (inFile.length === 0)
      throw new Error(`${file} declares no component (a class calling super with a type token)`);
    return inFile;
  });
  return { program, checker, root, components };
}
