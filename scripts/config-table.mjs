// Rewrites the configuration table of README.md from the settings table, src/config/settings.ts (run after a build).
import { readFileSync, writeFileSync } from 'node:fs';
import { SETTINGS } from '../dist/config/settings.js';

const cell = (value) => (value.startsWith('(') || / /.test(value) ? value : `\`${value}\``);
const rows = [
  '| Variable | Default | Meaning |',
  '|---|---|---|',
  ...SETTINGS.map((s) => `| \`${s.name}\` | ${cell(s.defaultValue)} | ${s.description} |`),
];
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const start = readme.indexOf('| Variable | Default | Meaning |');
const end = readme.indexOf('\n\n', start);
writeFileSync(new URL('../README.md', import.meta.url), readme.slice(0, start) + rows.join('\n') + readme.slice(end));
