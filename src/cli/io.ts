import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { ConfigOverrides } from '../config/config.js';

/** What a CLI command may touch; a seam for tests, the real process by default. */
export interface CliIo {
  readonly stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Settings given as global flags (`--data-dir`, `--base-url`); they win over the environment. */
  readonly overrides?: ConfigOverrides;
}

export const processIo: CliIo = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  get cwd() {
    return process.cwd();
  },
};

export function isInteractive(io: CliIo): boolean {
  return (io.stdin as NodeJS.ReadStream).isTTY === true;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks for a line without echoing it. */
export function promptHidden(io: CliIo, question: string): Promise<string> {
  io.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const rl = createInterface({ input: io.stdin as NodeJS.ReadableStream, output: muted, terminal: true });
  return new Promise((resolve, reject) => {
    rl.once('line', (line) => {
      rl.close();
      io.stderr.write('\n');
      resolve(line);
    });
    rl.once('SIGINT', () => {
      rl.close();
      reject(new Error('cancelled'));
    });
  });
}

/** Lays rows out in columns separated by two spaces. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
