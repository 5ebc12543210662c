/**
 * The statuses `webmention list --status` takes, named here so that the
 * command's help loads no storage module (docs/performance.md "CLI
 * start-up"); test/cli/cli-start-up.test.ts keeps them equal to the
 * webmentions table's.
 * @module
 */
export const WEBMENTION_STATUSES = ['pending', 'verified', 'failed', 'spam'] as const;
export type WebmentionStatus = (typeof WEBMENTION_STATUSES)[number];
