/**
 * Rules over several settings, checked after the table is read. Each names
 * the row after whose problems its own are reported.
 * @module
 */
import { filesTemplateProblems } from './files-template-rules.js';
import type { Config } from './config.js';

export interface CrossCheck {
  /** The variable after whose problems this rule's problems are listed. */
  readonly after: string;
  /** Problems, each naming its variables; `isSet` says whether a variable was given. */
  check(config: Config, isSet: (name: string) => boolean): readonly string[];
}

export const CROSS_CHECKS: readonly CrossCheck[] = [
  {
    after: 'INDIEWEB_SHUTDOWN_TIMEOUT',
    check: ({ server }) =>
      server.headersTimeout > server.requestTimeout ? ['INDIEWEB_HEADERS_TIMEOUT: must not be longer than INDIEWEB_REQUEST_TIMEOUT'] : [],
  },
  {
    after: 'INDIEWEB_S3_BUCKET',
    check: ({ media }, isSet) =>
      media.storage.kind === 's3' && !isSet('INDIEWEB_S3_BUCKET') ? ['INDIEWEB_S3_BUCKET: required when INDIEWEB_MEDIA_STORAGE=s3'] : [],
  },
  {
    after: 'INDIEWEB_S3_SECRET_ACCESS_KEY',
    check: ({ media }, isSet) =>
      media.storage.kind === 's3' && isSet('INDIEWEB_S3_ACCESS_KEY_ID') !== isSet('INDIEWEB_S3_SECRET_ACCESS_KEY')
        ? ['INDIEWEB_S3_ACCESS_KEY_ID and INDIEWEB_S3_SECRET_ACCESS_KEY go together']
        : [],
  },
  {
    after: 'INDIEWEB_FILES_URL_TEMPLATE',
    check: ({ files }) =>
      filesTemplateProblems(files.defaultTemplates).map(
        (problem) => `INDIEWEB_FILES_PATH_TEMPLATE/INDIEWEB_FILES_URL_TEMPLATE: ${problem}`,
      ),
  },
];
