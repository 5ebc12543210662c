/**
 * `indiestack send-webmentions SOURCE [--target URL…]`: the spec's
 * `send_webmentions` command.
 * @see SPEC.md "Webmention endpoints" rule 4
 * @module
 */
import type { Command } from 'commander';
import { WebmentionsFailedError } from '../core/errors.js';
import type { SendProgress, SendResult } from '../webmention/send.js';
import { configFrom } from './context.js';
import type { CliIo } from './io.js';

const CLEAR_LINE = '\r\u001b[K';

export function formatSendResult(result: SendResult): string {
  switch (result.status) {
    case 'sent':
      return `sent ${result.target} → ${result.endpoint ?? ''} (${result.httpStatus ?? ''})`;
    case 'no-endpoint':
      return `no-endpoint ${result.target}`;
    case 'failed':
      return `failed ${result.target}: ${result.error ?? 'unknown error'}`;
  }
}

export function formatSendCounts(results: readonly SendResult[]): string {
  const count = (status: SendResult['status']) => results.filter((r) => r.status === status).length;
  const targets = results.length === 1 ? '1 target' : `${results.length} targets`;
  return `${targets}: ${count('sent')} sent, ${count('no-endpoint')} no-endpoint, ${count('failed')} failed`;
}

function progressLine(event: SendProgress): string {
  switch (event.kind) {
    case 'reading-source':
      return `reading ${event.source}`;
    case 'sending':
      return `[${event.index + 1}/${event.total}] ${event.target}`;
    case 'done':
      return `[${event.index + 1}/${event.total}] ${event.result.status} ${event.result.target}`;
  }
}

export function registerSendWebmentionsCommand(program: Command, io: CliIo, run: (work: () => Promise<void>) => Promise<void>): void {
  program
    .command('send-webmentions')
    // the spec's name for the command
    .alias('send_webmentions')
    .description('send Webmentions from a page to the pages it links to (or to the given targets); exits 1 when any failed')
    .argument('<source>', 'URL of the page that mentions the targets')
    .option('--target <url...>', 'target URLs (default: the links in the source page, inside its first h-entry when it has one)')
    .action((source: string, options: { target?: string[] }) =>
      run(async () => {
        const config = configFrom(io);
        // progress is for people: only on a terminal, and only on stderr so stdout stays a clean summary
        const stderr = io.stderr as Partial<NodeJS.WriteStream>;
        const terminal = stderr.isTTY === true;
        // a progress line that wraps could no longer be cleared with \r
        const fit = (line: string) =>
          stderr.columns !== undefined && stderr.columns > 1 && line.length >= stderr.columns
            ? `${line.slice(0, stderr.columns - 2)}…`
            : line;
        const { outboundFor } = await import('../outbound/fetch.js');
        const { sendWebmentions } = await import('../webmention/send.js');
        const outbound = outboundFor(config);
        let results: SendResult[];
        try {
          results = await sendWebmentions({
            source,
            outbound,
            ...(options.target === undefined ? {} : { targets: options.target }),
            ...(terminal ? { onProgress: (event: SendProgress) => io.stderr.write(`${CLEAR_LINE}${fit(progressLine(event))}`) } : {}),
          });
        } finally {
          if (terminal) io.stderr.write(CLEAR_LINE);
          await outbound.close();
        }
        for (const result of results) io.stdout.write(`${formatSendResult(result)}\n`);
        io.stdout.write(`${formatSendCounts(results)}\n`);
        const failed = results.filter((r) => r.status === 'failed').length;
        if (failed > 0) throw new WebmentionsFailedError(`${failed} of ${results.length} webmentions failed`);
      }),
    );
}
