import { readFileSync } from 'node:fs';

/** The version in package.json (0.0.0 when it cannot be read). */
export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
