/**
 * Issue 30 item 8: `indiestack --version` and `--help` load only the command
 * line and the settings; a command loads what it needs when it runs. Read
 * from the source, not timed: the modules `src/cli/main.ts` loads at once
 * (static imports that are not type-only, followed through every module
 * they reach) stay within cli/, config/ and core/, and need no package but
 * commander. A new top-level import of the core, the database or a feature
 * fails here; put it inside the action (`await import(…)`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { WEBMENTION_STATUSES as LISTED } from '../../src/cli/webmention-statuses.js';
import { WEBMENTION_STATUSES as STORED } from '../../src/storage/repositories/webmentions.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The specifiers a module loads when it is loaded: static imports and re-exports that are not type-only. */
function loadedAtOnce(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const onlyTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!onlyTypes) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    }
  }
  return found;
}

/** Every module of ours and every package `entry` loads at once. */
function startUpGraph(entry: string): { modules: string[]; packages: string[] } {
  const modules = new Set<string>([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const specifier of loadedAtOnce(file)) {
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
      if (!modules.has(target)) {
        modules.add(target);
        queue.push(target);
      }
    }
  }
  return { modules: [...modules].sort(), packages: [...packages].sort() };
}

describe('the CLI starts without loading the application (issue 30 item 8)', () => {
  const graph = startUpGraph('src/cli/main.ts');

  it('loads at once only cli/, config/ and core/ modules: the core, the database and the features load inside the command that needs them', () => {
    expect(graph.modules.filter((file) => !/^src\/(cli|config|core)\//.test(file))).toEqual([]);
    // the graph is followed: the commands and the door to the core are in it, the core itself only as a type
    expect(graph.modules).toContain('src/cli/tokens.ts');
    expect(graph.modules).toContain('src/cli/with-core.ts');
  });

  it('needs no package at once but commander and Node itself', () => {
    expect(graph.packages.filter((name) => name !== 'commander' && !name.startsWith('node:'))).toEqual([]);
  });

  it('lists the webmention statuses of the webmentions table in `webmention list --status`', () => {
    expect(LISTED).toEqual(STORED);
  });
});
