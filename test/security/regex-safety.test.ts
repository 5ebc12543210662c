/**
 * Class 2 of issue 28: no super-linear regular expression over untrusted text.
 * Every regular expression in `src/` (regex literals, `new RegExp(…)` and
 * `RegExp(…)`, found with the TypeScript compiler, not with a regex over the
 * source) is checked with recheck, which models an unanchored search and so
 * also flags patterns that are linear per attempt but quadratic over a search
 * (`/<[^>]*>/g` on `<<<<…`). A `RegExp` built at run time must be made of
 * literal text and `escapeRegExp(…)` pieces, or be listed below with a reason.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** A run-time pattern that the scan cannot read, with why it is safe. Keep this list tiny. */
const ALLOWED_DYNAMIC: Readonly<Record<string, string>> = {
  'src/content/handlers/files/templates.ts:`^${source}$`':
    'the files handler path template: its text goes through escapeRegExp and its variables become the fixed groups of VARIABLE_PATTERNS (each a bounded class or [^/]+), matched against one short path',
};

/** Stands for an escaped piece of a run-time pattern: any escaped text is a run of literal characters. */
const ESCAPED_PLACEHOLDER = 'x';

/** String and RegExp methods that run a pattern over their text. */
const MATCHING_METHODS = new Set(['exec', 'test', 'match', 'matchAll', 'replace', 'replaceAll', 'search', 'split']);
const SUFFIX_METHODS = new Set(['slice', 'substring', 'substr']);

const isLoop = (node: ts.Node): boolean =>
  ts.isForStatement(node) || ts.isForOfStatement(node) || ts.isForInStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node);

/** The loop of the same function the node is in, if any (a nested function runs in a loop only when called there, which the scan cannot tell). */
function enclosingLoop(node: ts.Node): ts.Node | undefined {
  for (let up = node.parent; up !== undefined && !ts.isFunctionLike(up); up = up.parent) if (isLoop(up)) return up;
  return undefined;
}

const identifiersIn = (node: ts.Node): string[] => (ts.isIdentifier(node) ? [node.text] : node.getChildren().flatMap(identifiersIn));

/** Names the loop assigns to (`=`, `+=`, `++`, …). */
function writtenIn(loop: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      ts.isIdentifier(node.left)
    )
      names.add(node.left.text);
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && ts.isIdentifier(node.operand))
      names.add(node.operand.text);
    ts.forEachChild(node, visit);
  };
  visit(loop);
  return names;
}

/** `text.slice(i)` whose start the loop moves: the rest of the same text at each turn. */
function isMovingSuffix(node: ts.Expression, written: Set<string>): boolean {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression) || !SUFFIX_METHODS.has(node.expression.name.text))
    return false;
  const start = node.arguments[0];
  return start !== undefined && identifiersIn(start).some((name) => written.has(name));
}

interface Found {
  readonly where: string;
  readonly source: string;
  readonly flags: string;
}
interface Problem {
  readonly where: string;
  readonly text: string;
  readonly reason: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const isRegExpCallee = (node: ts.Expression): boolean =>
  (ts.isIdentifier(node) && node.text === 'RegExp') ||
  (ts.isPropertyAccessExpression(node) &&
    node.name.text === 'RegExp' &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'globalThis');

const isEscapeCall = (node: ts.Expression): boolean =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'escapeRegExp';

/** The pattern text of a `RegExp` argument, escaped pieces standing as a placeholder; null when it cannot be read. */
function patternText(node: ts.Expression): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      if (!isEscapeCall(span.expression)) return null;
      text += ESCAPED_PLACEHOLDER + span.literal.text;
    }
    return text;
  }
  if (isEscapeCall(node)) return ESCAPED_PLACEHOLDER;
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = patternText(node.left);
    const right = patternText(node.right);
    return left === null || right === null ? null : left + right;
  }
  if (ts.isParenthesizedExpression(node)) return patternText(node.expression);
  return null;
}

/** Every regular expression of the file; the ones that cannot be read go to `problems` unless allowed. */
function scan(path: string, found: Found[], problems: Problem[]): void {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const name = relative(ROOT, path).split('\\').join('/');
  const at = (node: ts.Node) => `${name}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const text = (node as ts.RegularExpressionLiteral).text;
      const slash = text.lastIndexOf('/');
      found.push({ where: at(node), source: text.slice(1, slash), flags: text.slice(slash + 1) });
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      MATCHING_METHODS.has(node.expression.name.text) &&
      enclosingLoop(node) !== undefined
    ) {
      // a pattern run over what is left of the text at each turn of a loop: quadratic, however linear the pattern
      const written = writtenIn(enclosingLoop(node)!);
      const subject = [node.expression.expression, ...node.arguments].find((candidate) => isMovingSuffix(candidate, written));
      if (subject !== undefined)
        problems.push({
          where: at(node),
          text: node.getText(file),
          reason:
            'a pattern run in a loop over the rest of the text from a moving position: quadratic; use a global or sticky expression and lastIndex, or one pass',
        });
    }
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && isRegExpCallee(node.expression)) {
      const [patternArgument, flagsArgument] = node.arguments ?? [];
      const shown = patternArgument === undefined ? '' : patternArgument.getText(file);
      const source = patternArgument === undefined ? '(?:)' : patternText(patternArgument);
      const flags = flagsArgument === undefined ? '' : ts.isStringLiteralLike(flagsArgument) ? flagsArgument.text : null;
      if (source !== null && flags !== null) found.push({ where: at(node), source, flags });
      else if (ALLOWED_DYNAMIC[`${name}:${shown}`] === undefined) {
        problems.push({
          where: at(node),
          text: shown,
          reason:
            'a RegExp built at run time from something other than literal text and escapeRegExp(…): build it that way, or list it in ALLOWED_DYNAMIC with a reason',
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

function allRegExps(paths = sourceFiles(SRC)): { found: Found[]; problems: Problem[] } {
  const found: Found[] = [];
  const problems: Problem[] = [];
  for (const path of paths) scan(path, found, problems);
  return { found, problems };
}

/** recheck's verdict: `safe`, or why not. The automaton checker is exact for these patterns and needs no random seed. */
async function verdict(source: string, flags: string): Promise<string> {
  const result = await check(source, flags, { timeout: 20_000, randomSeed: 28 });
  if (result.status === 'safe') return 'safe';
  if (result.status === 'vulnerable') return `vulnerable: ${result.complexity.summary} (attack: ${JSON.stringify(result.attack.pattern)})`;
  return `${result.status}: ${result.error.kind}`;
}

describe('regular expressions in src/ (issue 28, class 2)', () => {
  it('catches the class it is meant to catch: F1 and F5 patterns are vulnerable, a linear one is safe', async () => {
    expect(await verdict('<[^>]*>', 'g')).toMatch(/^vulnerable: 2nd degree polynomial/);
    expect(await verdict('[.,;:!?)\\]]+$', '')).toMatch(/^vulnerable: 2nd degree polynomial/);
    expect(await verdict('\\s+', 'g')).toBe('safe');
  });

  it('flags a pattern run over a moving suffix in a loop, and a RegExp built from unescaped text', () => {
    const directory = mkdtempSync(join(tmpdir(), 'regex-safety-'));
    try {
      const path = join(directory, 'sample.ts');
      writeFileSync(
        path,
        [
          'export function words(text: string) {',
          '  let i = 0;',
          '  while (i < text.length) { const m = /^\\w+/.exec(text.slice(i)); i += m === null ? 1 : m[0].length; }',
          '  for (const part of text.split(",")) void /\\s+/.test(part.slice(text.length));',
          '  return new RegExp(`^${text}$`);',
          '}',
        ].join('\n'),
      );
      const { found, problems } = allRegExps([path]);
      expect(found.map(({ source }) => source)).toEqual(['^\\w+', '\\s+']);
      expect(problems.map(({ where, reason }) => `${where.split('/').at(-1)} ${reason.split(':')[0]}`)).toEqual([
        'sample.ts:3 a pattern run in a loop over the rest of the text from a moving position',
        'sample.ts:5 a RegExp built at run time from something other than literal text and escapeRegExp(…)',
      ]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('finds them with the compiler, including run-time ones, and reads escaped pieces', () => {
    const { found } = allRegExps();
    expect(found.length).toBeGreaterThan(50);
    expect(found.some(({ where }) => where.startsWith('src/entries/routes.ts:'))).toBe(true);
  });

  it('has no vulnerable one, and no run-time one it cannot read', async () => {
    const { found, problems } = allRegExps();
    const byPattern = new Map<string, Found[]>();
    for (const item of found)
      byPattern.set(`/${item.source}/${item.flags}`, [...(byPattern.get(`/${item.source}/${item.flags}`) ?? []), item]);
    for (const list of byPattern.values()) {
      const { source, flags } = list[0]!;
      const answer = await verdict(source, flags);
      if (answer !== 'safe') for (const { where } of list) problems.push({ where, text: `/${source}/${flags}`, reason: answer });
    }
    expect(problems.map(({ where, text, reason }) => `${where} ${text} — ${reason}`)).toEqual([]);
  }, 120_000);
});
