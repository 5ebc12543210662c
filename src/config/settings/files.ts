/**
 * Rows of the settings table: the built-in `files` Micropub handler (site
 * directories, public URLs, front matter, templates, git). The template
 * rules themselves live in ../files-template-rules.ts (the handler uses them too).
 * @module
 */
import path from 'node:path';
import { parseStrictHttpUrl } from '../../core/url.js';
import { filesTemplateProblems, filesUserDirProblem } from '../files-template-rules.js';
import {
  DEFAULT_FILES_GIT_REMOTE,
  DEFAULT_FILES_PATH_TEMPLATE,
  DEFAULT_FILES_SECTIONS,
  DEFAULT_FILES_URL_TEMPLATE,
  DEFAULT_FILES_USER_DIR,
  FILES_FRONT_MATTER_FORMATS,
  FILES_GIT_MODES,
  type FilesTemplates,
} from '../config.js';
import { accept, directory, matching, oneOf, reject, splitList, text } from '../parsers.js';
import { defineSetting, type Parser, type Setting } from '../setting.js';
import { trimEndOf } from '../../core/text.js';

/** A user directory template over `{user}` and `{id}`, or `.`. */
function userDir(): Parser<string> {
  return {
    parse: (raw) => {
      const problem = filesUserDirProblem(raw);
      return problem === null ? accept(raw) : reject(`"${raw}" ${problem}`);
    },
    show: (value) => value,
  };
}

/** An absolute http(s) URL without query or fragment, where `{user}` may stand for the account name. */
function siteUrl(): Parser<string> {
  return {
    parse: (raw) => {
      const url = parseStrictHttpUrl(raw.replaceAll('{user}', 'user'));
      if (url === null || url.search !== '' || /[{}]/.test(raw.replaceAll('{user}', '')))
        return reject(`"${raw}" is not an absolute http(s) URL without query or fragment ({user} allowed)`);
      return accept(trimEndOf(raw, '/'));
    },
  };
}

/** `TYPE=PATH_TEMPLATE=URL_TEMPLATE` items; each pair of templates is checked as it is read. */
function templatesByType(): Parser<Readonly<Record<string, FilesTemplates>>> {
  return {
    parse: (raw) => {
      const templates: Record<string, FilesTemplates> = {};
      const problems: string[] = [];
      for (const item of splitList(raw)) {
        const [type, pathTemplate, urlTemplate, extra] = item.split('=');
        if (type === undefined || pathTemplate === undefined || urlTemplate === undefined || extra !== undefined) {
          problems.push(`"${item}" is not TYPE=PATH_TEMPLATE=URL_TEMPLATE`);
          continue;
        }
        if (!Object.hasOwn(DEFAULT_FILES_SECTIONS, type)) {
          problems.push(`"${type}" is not one of ${Object.keys(DEFAULT_FILES_SECTIONS).join(', ')}`);
          continue;
        }
        templates[type] = { path: pathTemplate, url: urlTemplate };
        for (const problem of filesTemplateProblems(templates[type])) problems.push(`${type}: ${problem}`);
      }
      return problems.length > 0 ? reject(...problems) : accept(templates);
    },
  };
}

export const FILES_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_FILES_CONTENT_DIR',
    key: 'files.contentDir',
    parser: directory(),
    default: ({ get }) => path.join(get('dataDir'), 'sites'),
    shownDefault: 'DATA_DIR/sites',
    description: "Files handler: directory holding every account's site directory.",
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_USER_DIR',
    key: 'files.userDir',
    parser: userDir(),
    default: DEFAULT_FILES_USER_DIR,
    description:
      "Files handler: an account's site directory inside the content directory; `{user}` is the account name, `{id}` its id; `.` uses the content directory itself (then only one account may publish).",
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_SITE_URL',
    key: 'files.siteUrl',
    parser: siteUrl(),
    default: null,
    shownDefault: '(first profile URL)',
    description: 'Files handler: public URL of the site the posts appear on (`{user}` allowed).',
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_FRONT_MATTER',
    key: 'files.frontMatter',
    parser: oneOf(FILES_FRONT_MATTER_FORMATS, { ignoreCase: true }),
    default: 'yaml',
    description: 'Files handler: `yaml` (between `---` lines) or `toml` (between `+++` lines).',
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_PATH_TEMPLATE',
    key: 'files.defaultTemplates.path',
    parser: text(),
    default: DEFAULT_FILES_PATH_TEMPLATE,
    description:
      'Files handler: file of a post inside the site directory; variables `{yyyy}` `{MM}` `{dd}` `{HH}` `{mm}` `{ss}` `{slug}` `{section}` (notes, articles, photos…) `{type}` (note, article…).',
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_URL_TEMPLATE',
    key: 'files.defaultTemplates.url',
    parser: text(),
    default: DEFAULT_FILES_URL_TEMPLATE,
    description:
      'Files handler: public URL of a post; starts with `{site}` and uses the same date and slug variables as the path template.',
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_TEMPLATES',
    key: 'files.templates',
    parser: templatesByType(),
    default: {},
    shownDefault: '(none)',
    description: 'Files handler: per post type overrides as `TYPE=PATH_TEMPLATE=URL_TEMPLATE`, comma- or whitespace-separated.',
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_GIT',
    key: 'files.git',
    parser: oneOf(FILES_GIT_MODES, { ignoreCase: true }),
    default: 'commit',
    description:
      'Files handler: `off`, `commit` (one commit per operation when the site directory is a git repository) or `push` (commit, then push; a failed push is retried with the next operation).',
  }),
  defineSetting({
    name: 'INDIEWEB_FILES_GIT_REMOTE',
    key: 'files.gitRemote',
    // security: the value becomes a git argument; a leading "-" would be read as an option
    parser: matching(/^[A-Za-z0-9_.:@/~+][A-Za-z0-9_.:@/~+-]*$/, 'a remote name, URL or path'),
    default: DEFAULT_FILES_GIT_REMOTE,
    description: 'Files handler: remote name (or URL) that `push` mode pushes the current branch to.',
  }),
];
