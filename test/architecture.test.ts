import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FEATURE_PAIRS,
  folderOf,
  importCycles,
  importsOf,
  layeringViolations,
  readImportGraph,
  runtimeLoadsOf,
  type ImportEdge,
} from './helpers/architecture.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the import graph of src/ (docs/architecture.md)', () => {
  const graph = readImportGraph(root);

  it('is read whole: every folder, and static, type-only, re-exported and dynamic imports', () => {
    const has = (from: string, to: string) => graph.edges.some((edge) => edge.from === from && edge.to === to);
    expect(new Set(graph.files.map(folderOf))).toEqual(
      new Set([
        '',
        'accounts',
        'admin',
        'app',
        'cli',
        'config',
        'content',
        'contracts',
        'core',
        'entries',
        'html',
        'indieauth',
        'jobs',
        'media',
        'micropub',
        'operations',
        'outbound',
        'profile',
        'storage',
        'syndication',
        'testing',
        'web',
        'webmention',
      ]),
    );
    expect(has('src/app/http-features.ts', 'src/micropub/feature.ts')).toBe(true);
    expect(has('src/app/context.ts', 'src/jobs/worker.ts')).toBe(true); // import type
    expect(has('src/index.ts', 'src/contracts/index.ts')).toBe(true); // export * from
    expect(has('src/cli/main.ts', 'src/app/server.ts')).toBe(true); // await import()
    expect(has('src/media/feature.ts', 'src/media/s3-storage.ts')).toBe(true); // await import()
  });

  it('follows the layering rules', () => {
    expect(layeringViolations(graph.edges)).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(importCycles(graph.files, graph.edges)).toEqual([]);
  });

  it('declares only feature pairs that are in use (the list stays the truth)', () => {
    const used = new Set(graph.edges.map((edge) => `${folderOf(edge.from)} -> ${folderOf(edge.to)}`));
    expect(Object.keys(FEATURE_PAIRS).filter((pair) => !used.has(pair))).toEqual([]);
  });

  it('html/ (the parse pool, the parse tree and its bounds) imports nothing of ours but core/', () => {
    expect(
      graph.edges.filter(
        (edge) => edge.from.startsWith('src/html/') && !edge.to.startsWith('src/html/') && !edge.to.startsWith('src/core/'),
      ),
    ).toEqual([]);
  });
});

describe('heavy libraries load on first use, not when the server starts (issue 31)', () => {
  /** Each library, the modules that load it, and what it would cost every server at start. */
  const LAZY = [
    ['sharp', 'src/media/photo-work.ts', 'libvips, ~22 MiB'],
    ['@simplewebauthn/server', 'src/accounts/passkeys/service.ts', 'with its crypto libraries, ~10 MiB'],
    // the outbound requests' client (webmentions, discovery) and the silos' (Mastodon, Bluesky): ~4 MiB
    ['undici', 'src/outbound/fetch.ts, src/syndication/silo-fetch.ts', 'an HTTP client, ~4 MiB'],
    ['sanitize-html', 'src/html/sanitize.ts', 'with postcss and htmlparser2, ~2 MiB'],
  ] as const;
  const loads = readImportGraph(root).files.flatMap((file) =>
    runtimeLoadsOf(file, readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')).map((load) => ({ file, ...load })),
  );

  it.each(LAZY)('%s is loaded only by a call in %s, never at start; other modules import its types at most (%s)', (library, loaders) => {
    const ofLibrary = loads.filter(({ specifier }) => specifier === library || specifier.startsWith(`${library}/`));
    expect(ofLibrary.filter(({ when }) => when === 'static').map(({ file }) => file)).toEqual([]);
    expect([...new Set(ofLibrary.map(({ file }) => file))].sort()).toEqual(loaders.split(', '));
  });

  it("node:http is imported for its types only (as an ES module it reads its lazy WebSocket export, which loads Node's bundled undici: ~13 MiB)", () => {
    expect(loads.filter(({ specifier }) => specifier === 'node:http' || specifier === 'http').map(({ file }) => file)).toEqual([]);
  });

  it('no module makes an Intl format or segmenter when it loads (the first one reads ~9 MiB of ICU data)', () => {
    // top-level statements start at the first column; a format made there is made in every process at start
    const atLoad = readImportGraph(root).files.filter((file) =>
      /^(?:export )?(?:const|let|var) [^\n]*new Intl\./m.test(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')),
    );
    expect(atLoad).toEqual([]);
  });

  it('reads a module that loads a library at start, lazily, and by its types only', () => {
    const text = [
      "import sharp from 'sharp';",
      "import type { Sharp } from 'sharp';",
      "import { type Metadata } from 'sharp';",
      "const lazy = () => import('@simplewebauthn/server');",
      "const required = createRequire(import.meta.url)('sharp');",
      "type Library = typeof import('sharp');",
    ].join('\n');
    expect(runtimeLoadsOf('x.ts', text)).toEqual([
      { specifier: 'sharp', when: 'static' },
      { specifier: 'sharp', when: 'static' },
      { specifier: '@simplewebauthn/server', when: 'lazy' },
      { specifier: 'sharp', when: 'lazy' },
    ]);
  });
});

/**
 * Issue 28 class 1: remote HTML is parsed only in the parse pool. The HTML
 * and microformats parsers are imported only by the modules the pool runs
 * (and the tree helpers they share); each of those is named by a caller as
 * `new URL('./x.js', import.meta.url)` and run with parseOffThread. A new
 * module that parses a page on the event loop fails here.
 */
describe('remote HTML is parsed off the event loop (issue 28, class 1)', () => {
  const PARSERS = new Set(['microformats-parser', 'parse5', 'htmlparser2']);
  /** Modules that run in the parse pool, or are helpers only those import for parsing. */
  const POOL_MODULES = new Set([
    'src/webmention/parse.ts',
    'src/webmention/author.ts',
    'src/html/tree.ts',
    'src/html/shape.ts',
    'src/webmention/discover-page.ts',
    'src/webmention/send-page.ts',
    // not a remote page: the content of the owner's own entry, sent with their token, within the body limit, read by parse5 in linear time
    'src/webmention/publish/targets.ts',
    'src/indieauth/client-page.ts',
    'src/admin/write/cite-page.ts',
    'src/operations/doctor/home-page.ts',
  ]);
  const graph = readImportGraph(root);

  it('only the pool modules import an HTML or microformats parser', () => {
    const importers = graph.files.filter((file) =>
      importsOf(file, readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')).some(({ specifier }) => PARSERS.has(specifier)),
    );
    expect(importers.filter((file) => !POOL_MODULES.has(file))).toEqual([]);
  });

  it('outside the pool modules, nothing imports their parsing functions, only types and bounded helpers', () => {
    const PARSING = /\b(readSource|readClientPage|readCitation|readHomePage|endpointInHtml|parseHtml|parseHtmlDocument|mf2)\b/;
    const offenders: string[] = [];
    for (const file of graph.files) {
      if (POOL_MODULES.has(file)) continue;
      const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
      for (const line of text.split('\n')) {
        if (line.startsWith('import ') && !line.startsWith('import type') && PARSING.test(line)) offenders.push(`${file}: ${line}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('the layering rules', () => {
  const edge = (from: string, to: string): ImportEdge => ({
    from,
    to,
    specifier: `./${to.split('/').pop()!.replace(/\.ts$/, '.js')}`,
    line: 1,
  });

  it.each([
    ['core/ → web/', edge('src/core/url.ts', 'src/web/html.ts'), 'core/ imports only core/ and contracts/'],
    ['core/ → storage/', edge('src/core/url.ts', 'src/storage/errors.ts'), 'core/ imports only core/ and contracts/'],
    ['web/ → app/', edge('src/web/csrf.ts', 'src/app/context.ts'), 'web/ imports only core/'],
    ['web/ → storage/', edge('src/web/error-handler.ts', 'src/storage/errors.ts'), 'web/ imports only core/'],
    ['web/ → config/', edge('src/web/body-parsers.ts', 'src/config/config.ts'), 'web/ imports only core/'],
    ['contracts/ → core/', edge('src/contracts/accounts.ts', 'src/core/url.ts'), 'contracts/ imports nothing outside contracts/'],
    ['a feature → app/', edge('src/media/routes.ts', 'src/app/context.ts'), 'a feature (media/) never imports the app root'],
    ['storage/ → app/', edge('src/storage/open.ts', 'src/app/server.ts'), 'a feature (storage/) never imports the app root'],
    ["a feature → another feature's routes.ts", edge('src/micropub/routes.ts', 'src/media/routes.ts'), "routes.ts is media/'s own"],
    [
      "a feature → another feature's responses.ts",
      edge('src/webmention/routes.ts', 'src/indieauth/responses.ts'),
      "responses.ts is indieauth/'s own",
    ],
    ["app/ → a feature's routes.ts", edge('src/app/plugin.ts', 'src/micropub/routes.ts'), "routes.ts is micropub/'s own"],
    ['app/ → cli/', edge('src/app/server.ts', 'src/cli/main.ts'), 'nothing outside cli/ imports cli/'],
    [
      'config/ → content/',
      edge('src/config/cross-checks.ts', 'src/content/handlers/files/templates.ts'),
      'config/ is a platform layer: it imports only core/, contracts/',
    ],
    [
      'content/ → a feature',
      edge('src/content/content.ts', 'src/media/hooks.ts'),
      'content/ is a platform layer: it imports only storage/, config/, core/, contracts/',
    ],
    ['jobs/ → a feature', edge('src/jobs/worker.ts', 'src/webmention/service.ts'), 'jobs/ is a platform layer'],
    ['storage/ → outbound/', edge('src/storage/connect.ts', 'src/outbound/fetch.ts'), 'storage/ is a platform layer'],
    ['html/ → storage/', edge('src/html/pool.ts', 'src/storage/connect.ts'), 'html/ is a platform layer: it imports only core/'],
    [
      'an undeclared feature pair',
      edge('src/media/library.ts', 'src/webmention/service.ts'),
      'media/ -> webmention/ is no declared feature pair',
    ],
    [
      'runtime code → testing/',
      edge('src/content/handlers/memory.ts', 'src/testing/index.ts'),
      'nothing outside testing/ imports testing/',
    ],
    ['cli/ → a repository', edge('src/cli/tokens.ts', 'src/storage/repositories/tokens.ts'), 'cli/ runs its commands inside the core'],
    [
      'cli/ → a repository, a type only',
      edge('src/cli/webmention-moderation.ts', 'src/storage/repositories/webmention-rules.ts'),
      'it imports nothing under storage/repositories/',
    ],
  ])('refuses %s, naming the import and the rule', (_direction, bad, message) => {
    const [violation, ...rest] = layeringViolations([bad]);
    expect(rest).toEqual([]);
    expect(violation).toContain(`${bad.from}:1 imports '${bad.specifier}' (${bad.to})`);
    expect(violation).toContain(message);
  });

  it.each([
    ['src/core/entry-hosts.ts', 'src/contracts/micropub-handler.ts'],
    ['src/web/csrf.ts', 'src/core/signing.ts'],
    ['src/micropub/routes.ts', 'src/micropub/responses.ts'],
    ['src/micropub/responses.ts', 'src/indieauth/bearer.ts'],
    ['src/media/routes.ts', 'src/web/reply.ts'],
    ['src/app/plugin.ts', 'src/webmention/feature.ts'],
    ['src/index.ts', 'src/app/plugin.ts'],
    ['src/cli/main.ts', 'src/app/server.ts'],
    ['src/micropub/actions.ts', 'src/content/call-handler.ts'],
    ['src/webmention/service.ts', 'src/jobs/worker.ts'],
    ['src/micropub/routes.ts', 'src/media/library.ts'],
    ['src/content/content.ts', 'src/storage/connect.ts'],
    ['src/cli/backup.ts', 'src/storage/repositories/jobs.ts'],
    ['src/cli/with-core.ts', 'src/storage/open.ts'],
    ['src/cli/with-core.ts', 'src/app/core.ts'],
  ])('allows %s → %s', (from, to) => {
    expect(layeringViolations([edge(from, to)])).toEqual([]);
  });

  it('names every import of a cycle, and only cycles', () => {
    const files = ['src/a/one.ts', 'src/a/two.ts', 'src/a/three.ts', 'src/b/self.ts', 'src/b/leaf.ts'];
    const edges = [
      edge('src/a/one.ts', 'src/a/two.ts'),
      edge('src/a/two.ts', 'src/a/three.ts'),
      edge('src/a/three.ts', 'src/a/one.ts'),
      edge('src/a/one.ts', 'src/b/leaf.ts'),
      edge('src/b/self.ts', 'src/b/self.ts'),
    ];
    const cycles = importCycles(files, edges);
    expect(cycles).toHaveLength(2);
    expect(cycles[0]).toContain('src/a/one.ts, src/a/three.ts, src/a/two.ts');
    expect(cycles[0]).toContain("src/a/three.ts:1 imports './one.js' (src/a/one.ts)");
    expect(cycles[0]).not.toContain('leaf');
    expect(cycles[1]).toContain("src/b/self.ts:1 imports './self.js' (src/b/self.ts)");
    expect(importCycles(files, edges.slice(0, 2))).toEqual([]);
  });

  it('reads static, type-only, re-exported and dynamic imports with their lines', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "type F = typeof import('./f.js');",
      "import './g.js';",
      'const s = \'import h from "./h.js"\';',
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { specifier: './a.js', line: 1 },
      { specifier: './b.js', line: 2 },
      { specifier: './c.js', line: 3 },
      { specifier: './d.js', line: 4 },
      { specifier: './e.js', line: 5 },
      { specifier: './f.js', line: 6 },
      { specifier: './g.js', line: 7 },
    ]);
  });
});
