import { describe, expect, it } from 'vitest';
import { createSealer } from './sealing.js';
import { createSigner } from './signing.js';

describe('sealing', () => {
  const sealer = createSealer(createSigner('s'.repeat(40)), 'syndication credentials');
  it('opens what it sealed; the sealed text does not contain the secret and differs each time', () => {
    const sealed = sealer.seal('{"token":"abc-secret"}');
    expect(sealed).not.toContain('abc-secret');
    expect(sealer.seal('{"token":"abc-secret"}')).not.toBe(sealed);
    expect(sealer.open(sealed)).toBe('{"token":"abc-secret"}');
  });
  it('refuses another secret, another purpose, altered text', () => {
    const sealed = sealer.seal('x');
    expect(() => createSealer(createSigner('t'.repeat(40)), 'syndication credentials').open(sealed)).toThrow();
    expect(() => createSealer(createSigner('s'.repeat(40)), 'other').open(sealed)).toThrow();
    expect(() => sealer.open(`${sealed.slice(0, -2)}AA`)).toThrow();
    expect(() => sealer.open('plain')).toThrow();
  });
});
