/**
 * Hostile leaf values (strings, names, JSON, file contents) as fast-check
 * arbitraries, and a seeded chooser that draws from them reproducibly.
 */
import fc from 'fast-check';

/** mulberry32: a small seeded PRNG for the structural choices of a case. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of case `index` of run `seed`: every case is generated on its own, so any one replays alone. */
export function caseSeed(seed, index) {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  return (h ^ (h >>> 15)) >>> 0;
}

export class Chooser {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  float() {
    return this.next();
  }
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p) {
    return this.next() < p;
  }
  pick(list) {
    return list[Math.floor(this.next() * list.length)];
  }
  /** `[[weight, value], ...]` */
  weighted(entries) {
    const total = entries.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [weight, value] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return entries.at(-1)[1];
  }
  /** One value of a fast-check arbitrary, seeded from this chooser. */
  draw(arbitrary) {
    return fc.sample(arbitrary, { seed: Math.floor(this.next() * 2 ** 31), numRuns: 1 })[0];
  }
}

export const PROTO_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  '__proto__[polluted]',
  'constructor[prototype][polluted]',
  '__proto__.polluted',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'properties[__proto__]',
  'h[]',
];

export const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\r\n',
  'a\r\nX-Injected: 1',
  '\r\n\r\nGET / HTTP/1.1\r\n\r\n',
  '\t',
  '\u000b\u000c',
  '../../../../x/secret',
  '..\\..\\..\\x\\secret.ini',
  '%2e%2e%2f%2e%2e%2fx%2fsecret',
  '....//....//x/secret',
  'a.png%00.html',
  '/x/secret\u0000.png',
  'file:///x/secret',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'; DROP TABLE users; --",
  '{{7*7}}',
  '${7*7}',
  '%s%s%s%n',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\ufeff',
  '\u202egnp.exe',
  '\u200b',
  'İı',
  'ß',
  '\uffff',
  '\ufffd',
  '𝕏',
  '👨‍👩‍👧‍👦',
  'NaN',
  'Infinity',
  '-1',
  '-0',
  '1e309',
  '0x10',
  '9'.repeat(400),
  '1.5',
  ' 1',
  '+1',
  '[]',
  '{}',
  'null',
  'true',
  'undefined',
  'http://',
  'https://',
  'http://127.0.0.1:1/',
  'http://[::1]/',
  'http://169.254.169.254/latest/meta-data/',
  'https://user:pass@example.com/',
  'https://example.com/#frag',
  'https://ex ample.com/',
  '//evil.example/',
  'https://xn--80ak6aa92e.com/',
  'mailto:a@b.example',
  'https://example.com/%zz',
  'http://0x7f.1/',
  'HTTPS://EXAMPLE.COM/',
  ...PROTO_NAMES,
];

const repeated = fc
  .tuple(fc.constantFrom('a', '%', 'é', '😀', '\u0000', '/..', ',', '&', '=', '"'), fc.constantFrom(100, 1_000, 10_000, 100_000, 1_100_000))
  .map(([text, times]) => text.repeat(times));

/** A hostile string: special values, arbitrary Unicode (lone surrogates included), very long text, numbers, URLs. */
export const hostileString = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  { weight: 1, arbitrary: repeated },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map(String) },
);

/** A field or property name: plausible, prototype-named, bracketed, or arbitrary. */
export const hostileName = (known) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 3, arbitrary: fc.constantFrom(...PROTO_NAMES) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...known), fc.constantFrom('[]', '[0]', '[__proto__]', '[a][b][c]', '[]'.repeat(50), '.', '['))
        .map(([name, suffix]) => name + suffix),
    },
    { weight: 2, arbitrary: hostileString },
  );

/** Text inserted raw into a JSON document: deep nesting, huge numbers, odd escapes. */
export const rawJson = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('[', '{"a":'), fc.constantFrom(10, 64, 100, 1_000, 5_000, 10_000, 100_000))
      .map(([open, depth]) => ({ depth, open })),
  },
  fc.constantFrom(
    '1e309',
    '-1e309',
    '123456789012345678901234567890',
    '-0',
    '0.0000000000000000000001',
    '"\\ud800"',
    '"\\u0000"',
    '"\\uDFFF\\uD800"',
    'true',
    'null',
  ),
  fc.constantFrom(1_000, 10_000, 100_000).map((width) => ({ width })),
  fc.constantFrom(10_000, 200_000).map((length) => ({ array: length })),
);

/** The text of a raw JSON fragment. `maxDepth` caps nesting (the --skip-known mode). */
export function rawJsonText(fragment, maxDepth = Infinity) {
  if (typeof fragment === 'string') return fragment;
  if (fragment.depth !== undefined) {
    const depth = Math.min(fragment.depth, maxDepth);
    return fragment.open === '[' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  }
  if (fragment.width !== undefined) return `{${Array.from({ length: fragment.width }, (_, i) => `"k${i}":[${i}]`).join(',')}}`;
  return `[${Array.from({ length: fragment.array }, () => '"x"').join(',')}]`;
}

export const jsonValue = fc.jsonValue({ maxDepth: 4 });

/** A 1x1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001a5f645400000000049454e44ae426082',
  'hex',
);

export const fileContent = fc.oneof(
  { weight: 4, arbitrary: fc.constant(PNG) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constant(Buffer.concat([PNG.subarray(0, 8)])) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '<html><script>alert(1)</script></html>',
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        '<?php echo 1; ?>',
        'GIF89a<script>',
        '',
      )
      .map((text) => Buffer.from(text)),
  },
  { weight: 1, arbitrary: fc.constantFrom(64 * 1024, 1024 * 1024).map((size) => Buffer.concat([PNG, Buffer.alloc(size, 7)])) },
);

export const fileName = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'a.png',
      'a.PNG',
      'a.jpg',
      'a.html',
      'a.svg',
      'a.php',
      'a.php.png',
      'a.png.php',
      '.htaccess',
      '',
      '.',
      '..',
      '../../../x.png',
      '..\\..\\x.png',
      '/x.png',
      'a\u0000.png',
      'a"; name="x.png',
      'a\r\n.png',
      'ä.png',
      'CON.png',
      'a'.repeat(5000) + '.png',
    ),
  },
  { weight: 2, arbitrary: hostileString },
);

export const contentTypes = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=x',
  'multipart/mixed; boundary=x',
  'text/plain',
  'text/html',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'APPLICATION/JSON',
  ' application/json ',
  'application/json;;;',
  'application/jsonx',
  'application/merge-patch+json',
  'application/ld+json',
  '*/*',
  '',
  'application',
  '/',
  'a/b/c',
  'application/json\u0000',
  'multipart/form-data; boundary="quoted"; boundary=second',
  `multipart/form-data; boundary=${'b'.repeat(200)}`,
  'image/png',
  'application/octet-stream',
];
