#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// a reader that stops early (`indiestack token list | head -1`) is not an error of ours: stop quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
