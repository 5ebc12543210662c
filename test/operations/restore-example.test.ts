import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

describe("docs/operations.md's restore example", () => {
  it('starts the restored copy with the database handler, on a port other than the running server', () => {
    const block = /## Backups\n\n```sh\n([\s\S]*?)```/.exec(operations)?.[1] ?? '';
    const serve = block.split('\n').find((line) => line.includes('indiestack serve'));
    expect(serve).toBeDefined();
    expect(serve).toContain('INDIEWEB_DATA_DIR=./data-restored');
    // restored posts are served only by the handler that stored them
    expect(serve).toContain('INDIEWEB_MICROPUB_HANDLER=database');
    // the server being backed up still listens on 8080
    const port = /--port (\d+)/.exec(serve ?? '')?.[1];
    expect(port).toBeDefined();
    expect(port).not.toBe('8080');
  });
});
