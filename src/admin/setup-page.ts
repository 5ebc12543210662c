/**
 * Check my setup: the doctor's checks (`indiestack doctor`) for the signed-in
 * account, run from the server on a button press (a POST: it makes outbound
 * requests, so it needs the CSRF token, and one run per account at a time).
 * Each check is a row, PASS, WARN or FAIL, with what was found and the fix:
 * the account's homepages first, then what the server stands on.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CheckResult } from '../operations/doctor/check.js';
import type { LinksHint } from '../operations/doctor/remote-checks.js';
import type { DoctorService } from '../operations/doctor/service.js';
import { linkTags } from '../profile/template-helpers.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { errorAlert, notice } from '../web/ui/messages.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface SetupPageDeps {
  readonly doctor: DoctorService;
  readonly baseUrl: string;
}

const LINKS_HEADING = 'Links for your homepage';
const LINKS_ID = 'homepage-links';
/** The fixes of the homepage checks point at the tags shown on this page. */
const LINKS_HINT: LinksHint = { where: `shown under “${LINKS_HEADING}” below`, short: `see “${LINKS_HEADING}” below` };

/** Checks of the account's homepages (named `profile …`, `me-spelling …`, `profile-link … URL`, `h-card URL`); the rest are the server's. */
const isHomepageCheck = (check: CheckResult) => /^(profile|profile-links?|me-spelling|h-card) /.test(check.name);

function checkRow(check: CheckResult): SafeHtml {
  return html`<tr><td><strong>${check.status}</strong></td><td><code>${check.name}</code></td><td>${check.message}${check.fix === null ? '' : html`<br>Fix: ${check.fix}`}</td></tr>`;
}

function checkTable(caption: string, checks: readonly CheckResult[]): SafeHtml | '' {
  if (checks.length === 0) return '';
  return html`<table><caption>${caption}</caption><thead><tr><th scope="col">Result</th><th scope="col">Check</th><th scope="col">What was found</th></tr></thead>
<tbody>${checks.map(checkRow)}</tbody></table>`;
}

function summary(checks: readonly CheckResult[]): SafeHtml {
  const count = (status: CheckResult['status']) => checks.filter((check) => check.status === status).length;
  const failures = count('FAIL');
  const text = `${checks.length} checks: ${count('PASS')} passed, ${count('WARN')} with a warning, ${failures} failed.`;
  return failures > 0 ? errorAlert(`${text} Fix the failures first: clients cannot work with your site until then.`) : notice(text);
}

function results(checks: readonly CheckResult[]): SafeHtml {
  return html`<h2>Results</h2>
${summary(checks)}
${checkTable('Your homepage, as a client signing in with it sees it', checks.filter(isHomepageCheck))}
${checkTable('This server, as clients reach it, and what it stands on. If someone else runs it, send them the failures.', checks.filter((check) => !isHomepageCheck(check)))}`;
}

export function setupPage(app: FastifyInstance, deps: SetupPageDeps): void {
  const { doctor, baseUrl } = deps;

  function sendSetupPage(request: FastifyRequest, reply: FastifyReply, outcome: { checks?: readonly CheckResult[]; busy?: boolean }): FastifyReply {
    const { csrf } = sessionOf(request);
    const content = html`<p>Checks your site from the outside, as an app signing in with it would: that this server answers at its public address and gets the <code>Authorization</code> header through any proxy, that your homepage links this server and has an h-card, and that the database, media storage and background jobs work. It takes a few seconds.</p>
${outcome.busy === true ? errorAlert('A check of your setup is already running. Wait until it has finished, then try again.') : ''}
${buttonForm({ action: `${ADMIN}/setup/`, csrf, label: outcome.checks === undefined ? 'Check my setup' : 'Check again' })}
${outcome.checks === undefined ? '' : results(outcome.checks)}
<h2 id="${LINKS_ID}">${LINKS_HEADING}</h2>
<p>Put these in the <code>&lt;head&gt;</code> of your homepage, or send them in a <code>Link</code> header:</p>
<pre><code>${linkTags(baseUrl)}</code></pre>`;
    return sendAdminPage(request, reply, { title: 'Check my setup', content, status: outcome.busy === true ? 429 : 200 });
  }

  app.get('/setup/', async (request, reply) => sendSetupPage(request, reply, {}));

  // the guard checked the CSRF token: nothing is fetched for a forged form
  app.post('/setup/', async (request, reply) => {
    const { user } = sessionOf(request);
    const run = await doctor.checkAccount(user, LINKS_HINT);
    if (run.status === 'busy') {
      reply.header('retry-after', '10');
      return sendSetupPage(request, reply, { busy: true });
    }
    request.log.info({ userId: user.id, failed: run.checks.filter((check) => check.status === 'FAIL').map((check) => check.name) }, 'setup checked');
    return sendSetupPage(request, reply, { checks: run.checks });
  });
}

