import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config/settings.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

describe('README', () => {
  it('its first two code blocks run the server and the tests', () => {
    const [first, second] = codeBlocks(readme);
    expect(first).toContain('npm install');
    // the clone's own bin, directly: the server starts within seconds of a fresh clone's install (issue 30 item 1)
    expect(first).toContain('npm start');
    expect(readme).toContain('npx indiestack serve');
    expect(second?.trim()).toBe('npm test');
  });

  it('its configuration table lists exactly the settings src/config reads, with their defaults', () => {
    const rows = [...readme.matchAll(/^\| `(INDIEWEB_[A-Z0-9_]+)` \| (.*?) \| (.*?) \|$/gm)].map((match) => ({
      name: match[1],
      defaultValue: (match[2] ?? '').replace(/`/g, ''),
    }));
    expect(rows.map((row) => row.name)).toEqual(SETTINGS.map((setting) => setting.name));
    for (const setting of SETTINGS) {
      expect(rows.find((row) => row.name === setting.name)?.defaultValue).toBe(setting.defaultValue);
    }
  });

  it('names every CLI command the issues promise', () => {
    for (const command of [
      'serve',
      'migrate',
      'user add',
      'user list',
      'user disable',
      'user enable',
      'user passwd',
      'token issue',
      'token list',
      'token revoke',
      'links',
      'profile show',
      'profile set',
      'webmention list',
      'webmention reprocess',
      'webmention spam',
      'send-webmentions',
    ]) {
      expect(readme).toContain(`indiestack ${command}`);
    }
  });
});
