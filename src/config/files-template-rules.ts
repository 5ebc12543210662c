/**
 * The rules a files-handler template must follow, checked when the settings
 * are read (`INDIEWEB_FILES_*`) and again when a handler is created: a path
 * stays inside the site directory, a URL leads back to exactly one file, and
 * a user directory template is a relative path over `{user}` and `{id}`.
 * Pure: no file system, no settings reader.
 * @module
 */
import type { FilesTemplates } from './config.js';

/** Variables a files-handler path template may use; a URL template may also use `{site}`. */
export const FILES_TEMPLATE_VARIABLES = ['yyyy', 'MM', 'dd', 'HH', 'mm', 'ss', 'slug', 'section', 'type'] as const;

const TEMPLATE_LITERAL = /^[A-Za-z0-9._~/-]*$/;

/** Splits a template into literal text and `{variable}` names; null when the braces do not pair up. */
export function splitFilesTemplate(template: string): { readonly literals: string[]; readonly variables: string[] } | null {
  const literals: string[] = [];
  const variables: string[] = [];
  let rest = template;
  for (;;) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (open === -1) {
      if (close !== -1) return null;
      literals.push(rest);
      return { literals, variables };
    }
    if (close < open) return null;
    literals.push(rest.slice(0, open));
    variables.push(rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
  }
}

/**
 * Everything wrong with a pair of files-handler templates (empty when they are fine). The path
 * stays inside the site directory (relative, no `.` or `..` or hidden segments) and ends in
 * `.md`; the URL starts with `{site}`; both use the same date and slug variables, so a URL
 * always leads back to exactly one file.
 */
export function filesTemplateProblems(templates: FilesTemplates): string[] {
  const problems: string[] = [];
  const known = new Set<string>(FILES_TEMPLATE_VARIABLES);
  const pathParts = splitFilesTemplate(templates.path);
  const urlParts = splitFilesTemplate(templates.url);
  if (pathParts === null) problems.push(`path template "${templates.path}" has unpaired braces`);
  if (urlParts === null) problems.push(`URL template "${templates.url}" has unpaired braces`);
  if (pathParts === null || urlParts === null) return problems;

  for (const name of pathParts.variables)
    if (!known.has(name)) problems.push(`path template "${templates.path}" uses unknown variable {${name}}`);
  if (!pathParts.literals.every((literal) => TEMPLATE_LITERAL.test(literal)))
    problems.push(`path template "${templates.path}" may only hold letters, digits and . _ ~ / - outside variables`);
  const segments = templates.path.split('/');
  if (templates.path.startsWith('/') || segments.some((segment) => segment === '' || segment.startsWith('.'))) {
    problems.push(`path template "${templates.path}" must be relative, without empty, "." or ".." segments or hidden names`);
  }
  if (!/\.(md|markdown)$/.test(templates.path)) problems.push(`path template "${templates.path}" must end in .md or .markdown`);
  if (!pathParts.variables.includes('slug')) problems.push(`path template "${templates.path}" must contain {slug}`);

  if (!templates.url.startsWith('{site}') || urlParts.variables.filter((name) => name === 'site').length !== 1)
    problems.push(`URL template "${templates.url}" must start with {site} and use it once`);
  for (const name of urlParts.variables)
    if (name !== 'site' && !known.has(name)) problems.push(`URL template "${templates.url}" uses unknown variable {${name}}`);
  if (!urlParts.literals.every((literal) => TEMPLATE_LITERAL.test(literal)))
    problems.push(`URL template "${templates.url}" may only hold letters, digits and . _ ~ / - outside variables`);

  const varying = (names: readonly string[]) =>
    [...new Set(names.filter((name) => !['site', 'section', 'type'].includes(name)))].sort().join(' ');
  if (varying(pathParts.variables) !== varying(urlParts.variables))
    problems.push(`path template "${templates.path}" and URL template "${templates.url}" must use the same date and slug variables`);
  return problems;
}

/** Why a files-handler user directory template is unusable, or null when it is fine. */
export function filesUserDirProblem(userDir: string): string | null {
  if (userDir === '.') return null;
  const parts = splitFilesTemplate(userDir);
  if (
    parts === null ||
    parts.variables.some((name) => name !== 'user' && name !== 'id') ||
    !parts.literals.every((literal) => TEMPLATE_LITERAL.test(literal))
  ) {
    return 'is not "." or a template of letters, digits, . _ ~ / - with {user} and {id}';
  }
  if (userDir.startsWith('/') || userDir.split('/').some((segment) => segment === '' || segment.startsWith('.')))
    return 'must be relative, without empty, "." or ".." segments or hidden names';
  return null;
}
