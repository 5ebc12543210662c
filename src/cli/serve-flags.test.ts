import { describe, expect, it } from 'vitest';
import { commandOf, SERVE_V8_FLAGS, serveRelaunchArgs, serveRelaunchEnv } from './serve-flags.js';

const NODE = '/usr/bin/node';
const BIN = '/srv/indiestack/bin/indiestack.js';

describe('serve runs again with the young generation bounded (issue 31)', () => {
  it('finds the command after the global options and their values', () => {
    expect(commandOf(['serve', '--port', '3000'])).toBe('serve');
    expect(commandOf(['--data-dir', 'serve', 'token', 'list'])).toBe('token');
    expect(commandOf(['--data-dir=/srv/data', '--base-url', 'https://x.example', 'serve'])).toBe('serve');
    expect(commandOf(['--', 'serve'])).toBe('serve');
    expect(commandOf(['--help'])).toBeUndefined();
    expect(commandOf([])).toBeUndefined();
  });

  it('adds the flags in front of what Node was given, and keeps the rest of the command line as it was', () => {
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'serve', '--port', '3000'], ['--inspect'], undefined)).toEqual([
      NODE,
      ...SERVE_V8_FLAGS,
      '--inspect',
      BIN,
      'serve',
      '--port',
      '3000',
    ]);
    expect(SERVE_V8_FLAGS).toEqual(['--max-semi-space-size=8']);
  });

  it('leaves every other command alone, and an operator’s own young generation setting (command line or NODE_OPTIONS)', () => {
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'token', 'list'], [], undefined)).toBeNull();
    expect(serveRelaunchArgs(NODE, [NODE, BIN], [], undefined)).toBeNull();
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'serve'], ['--max-semi-space-size=8'], undefined)).toBeNull();
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'serve'], ['--max-semi-space-size', '32'], undefined)).toBeNull();
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'serve'], [], '--enable-source-maps --max-semi-space-size=64')).toBeNull();
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'serve'], [], '--max-heap-size=512')).toBeNull();
    expect(serveRelaunchArgs(NODE, [NODE, BIN, 'serve'], [], '--enable-source-maps')).not.toBeNull();
  });

  it('runs with two glibc malloc arenas unless the environment says otherwise', () => {
    expect(serveRelaunchEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', MALLOC_ARENA_MAX: '2' });
    expect(serveRelaunchEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({ MALLOC_ARENA_MAX: '8' });
  });
});
