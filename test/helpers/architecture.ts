/**
 * The import graph of `src/` and the layering rules it must follow
 * (docs/architecture.md). Imports are read with the TypeScript compiler's
 * parser: static imports and re-exports, `import type`, `import()` calls and
 * `import('…')` types.
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of one module by another, paths relative to the repository root with `/` separators. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** As written in the source. */
  readonly specifier: string;
  readonly line: number;
}

/**
 * The platform layers below the features, each with the folders it may
 * import (besides itself). Bottom first: a layer imports only layers above it
 * in this list.
 */
export const PLATFORM_LAYERS: Readonly<Record<string, readonly string[]>> = {
  contracts: [],
  core: ['contracts'],
  web: ['core'],
  html: ['core'],
  config: ['core', 'contracts'],
  storage: ['config', 'core', 'contracts'],
  // a fetched page is read in the parse pool, with the server's parse time (Outbound.read)
  outbound: ['html', 'config', 'core', 'contracts'],
  jobs: ['storage', 'config', 'core', 'contracts'],
  content: ['storage', 'config', 'core', 'contracts'],
};

/** The features: each may import any platform layer, and another feature only as {@link FEATURE_PAIRS} declares. */
export const FEATURE_FOLDERS = [
  'accounts',
  'indieauth',
  'profile',
  'micropub',
  'media',
  'webmention',
  'entries',
  'operations',
  'syndication',
  'admin',
] as const;

/**
 * Feature → feature imports, each a reviewed decision with its reason. A new
 * pair fails the architecture test until it is added here (and to
 * docs/architecture.md) on purpose.
 */
export const FEATURE_PAIRS: Readonly<Record<string, string>> = {
  'accounts -> profile': 'the sign-in pages render with the profile template helpers',
  'profile -> accounts': 'the public profile looks its user up in the user service',
  'profile -> indieauth': 'the profile page advertises the IndieAuth metadata endpoint',
  'indieauth -> profile': 'the consent page and the token answer carry the h-card profile',
  'micropub -> indieauth': 'the bearer guard',
  'micropub -> media': 'the media endpoint shares the Micropub scope and its upload pipeline',
  'media -> indieauth': 'the bearer guard',
  'webmention -> indieauth': 'the bearer guard of the deploy signal',
  'entries -> accounts': 'entry pages are found by the user name',
  'entries -> profile': 'the h-card of the entry home',
  'entries -> webmention': 'the mentions shown under an entry',
  'operations -> webmention': 'the doctor reads advertised endpoints as senders discover them',
  'admin -> accounts': 'the signed-in session and the account pages',
  'admin -> indieauth': "the apps page and the Write area's short-lived tokens",
  'admin -> profile': 'the profile page',
  'admin -> media': 'the media page',
  'admin -> webmention': 'the webmention pages',
  'admin -> entries': 'the Write preview renders content as entry pages do',
  'admin -> operations': 'Check my setup runs the doctor',
  'admin -> syndication': 'the Syndication page: targets, status and retry through the syndication service',
  'syndication -> media': "photos go to a silo sized under its limits with the photo issue's fitWithin (photo-fit.ts)",
};

/** Top-level folders that never import the app root: the features and the platform layers. */
export const FEATURES = [...FEATURE_FOLDERS, ...Object.keys(PLATFORM_LAYERS)] as const;

/**
 * The CLI modules that may use storage repositories themselves: the backup
 * and the migrate command (in main.ts) work on the database as files and
 * schema. Every other command runs inside the core (src/cli/with-core.ts).
 */
export const CLI_STORAGE_MODULES: ReadonlySet<string> = new Set(['src/cli/backup.ts', 'src/cli/main.ts']);

/** Module names whose other-feature importers are refused: a feature's HTTP surface is its own. */
const PRIVATE_MODULES = new Set(['routes.ts', 'responses.ts']);

function sourceFiles(root: string, dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...sourceFiles(root, relative));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) files.push(relative);
  }
  return files;
}

/** Module specifiers of one source text, with their 1-based lines. */
export function importsOf(fileName: string, text: string): { specifier: string; line: number }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { specifier: string; line: number }[] = [];
  const add = (node: ts.Node | undefined) => {
    if (node !== undefined && ts.isStringLiteralLike(node))
      found.push({ specifier: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The modules one source text loads at run time: `static` for an import or
 * re-export that is not type-only (it loads when this module loads), `lazy`
 * for an `import('…')` call or a `require('…')`/`createRequire(…)('…')` call
 * (it loads when the call runs). `import type` and `import('…')` types load
 * nothing and are left out; `import { type A }` loads the module (see below).
 */
export function runtimeLoadsOf(fileName: string, text: string): { specifier: string; when: 'static' | 'lazy' }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { specifier: string; when: 'static' | 'lazy' }[] = [];
  // under verbatimModuleSyntax (tsconfig.json) only `import type` is dropped: `import { type A } from 'x'` still
  // loads x (as `import {} from 'x'`)
  const typeOnlyImport = (node: ts.ImportDeclaration) => node.importClause?.isTypeOnly === true;
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier) && !typeOnlyImport(node))
      found.push({ specifier: node.moduleSpecifier.text, when: 'static' });
    else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteralLike(node.moduleSpecifier) &&
      !node.isTypeOnly
    )
      found.push({ specifier: node.moduleSpecifier.text, when: 'static' });
    else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === 'require') ||
        (ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire');
      if (loads) found.push({ specifier: node.arguments[0].text, when: 'lazy' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every relative import between the modules under `dir` (tests left out), resolved to files. */
export function readImportGraph(root: string, dir = 'src'): { files: string[]; edges: ImportEdge[] } {
  const files = sourceFiles(root, dir).sort();
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const { specifier, line } of importsOf(from, readFileSync(path.join(root, from), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
      if (!existsSync(path.join(root, target))) throw new Error(`${from}:${line} imports '${specifier}', which is no file under ${dir}/`);
      edges.push({ from, to: target, specifier, line });
    }
  }
  return { files, edges };
}

/** The top-level folder of a module under `src/` (`''` for `src/index.ts`). */
export function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? (parts[1] ?? '') : '';
}

function describeEdge(edge: ImportEdge): string {
  return `${edge.from}:${edge.line} imports '${edge.specifier}' (${edge.to})`;
}

/** The rule an import breaks, or null. */
function brokenRule(edge: ImportEdge): string | null {
  const from = folderOf(edge.from);
  const to = folderOf(edge.to);
  if (from === to) return null;
  if (from === 'cli' && edge.to.startsWith('src/storage/repositories/') && !CLI_STORAGE_MODULES.has(edge.from)) {
    return 'cli/ runs its commands inside the core (cli/with-core.ts): it imports nothing under storage/repositories/ (but backup.ts and the migrate command)';
  }
  if (from === 'contracts') return 'contracts/ imports nothing outside contracts/';
  if (from === 'core' && to !== 'contracts') return 'core/ imports only core/ and contracts/';
  if (from === 'web' && to !== 'core') return 'web/ imports only core/';
  if (to === 'app' && (FEATURES as readonly string[]).includes(from)) return `a feature (${from}/) never imports the app root`;
  if (to === 'cli' || to === 'testing') return `nothing outside ${to}/ imports ${to}/`;
  const platform = PLATFORM_LAYERS[from];
  if (platform !== undefined && !platform.includes(to))
    return `${from}/ is a platform layer: it imports only ${platform.map((folder) => `${folder}/`).join(', ') || 'itself'}`;
  if (
    (FEATURE_FOLDERS as readonly string[]).includes(from) &&
    (FEATURE_FOLDERS as readonly string[]).includes(to) &&
    FEATURE_PAIRS[`${from} -> ${to}`] === undefined
  ) {
    return `${from}/ -> ${to}/ is no declared feature pair (FEATURE_PAIRS in test/helpers/architecture.ts): a new pair is a reviewed decision`;
  }
  if (PRIVATE_MODULES.has(path.posix.basename(edge.to)))
    return `${path.posix.basename(edge.to)} is ${to}/'s own: other folders get its routes from ${to}/feature.ts and shared answers from the kit (web/) or the module they belong to`;
  return null;
}

/** One line per import that breaks a layering rule, naming the import and the rule. */
export function layeringViolations(edges: readonly ImportEdge[]): string[] {
  const violations: string[] = [];
  for (const edge of edges) {
    const rule = brokenRule(edge);
    if (rule !== null) violations.push(`${describeEdge(edge)}: ${rule}`);
  }
  return violations;
}

/** One line per import cycle (Tarjan's strongly connected components), naming the imports that close it. */
export function importCycles(files: readonly string[], edges: readonly ImportEdge[]): string[] {
  const outgoing = new Map<string, ImportEdge[]>(files.map((file) => [file, []]));
  for (const edge of edges) outgoing.get(edge.from)?.push(edge);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of outgoing.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = (outgoing.get(file) ?? []).some((edge) => edge.to === file);
    if (component.length > 1 || selfImport) components.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return components.map((component) => {
    const members = new Set(component);
    const inside = edges.filter((edge) => members.has(edge.from) && members.has(edge.to));
    return `import cycle through ${component.join(', ')}: ${inside.map(describeEdge).join('; ')}`;
  });
}
