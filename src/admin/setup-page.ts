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

/** Text whose URLs may wrap after each slash (`<wbr>`), so a long endpoint does not widen the page on a phone. */
function wrappable(text: string): SafeHtml[] {
  return text.split(/(?<=\/)(?!\/)/).map((piece, index) => (index === 0 ? html`${piece}` : html`<wbr>${piece}`));
}

/** A row: the check's name without the profile URL its table is about. */
function checkRow(check: CheckResult, me?: string): SafeHtml {
  const label = me !== undefined && check.name.endsWith(` ${me}`) ? check.name.slice(0, -me.length - 1) : check.name;
  const fix = check.fix === null ? '' : html`<br>Fix: ${wrappable(check.fix)}`;
  return html`<tr><td><strong>${check.status}</strong></td><td>${wrappable(label)}</td><td>${wrappable(check.message)}${fix}</td></tr>`;
}

function checkTable(caption: SafeHtml, checks: readonly CheckResult[], me?: string): SafeHtml | '' {
  if (checks.length === 0) return '';
  return html`<table><caption>${caption}</caption>
<thead><tr><th scope="col">Result</th><th scope="col">Check</th><th scope="col">What was found</th></tr></thead>
<tbody>${checks.map((check) => checkRow(check, me))}</tbody></table>`;
}

function summary(checks: readonly CheckResult[]): SafeHtml {
  const count = (status: CheckResult['status']) => checks.filter((check) => check.status === status).length;
  const failures = count('FAIL');
  const text = `${checks.length} checks: ${count('PASS')} passed, ${count('WARN')} with a warning, ${failures} failed.`;
  return failures > 0 ? errorAlert(`${text} Fix the failures first: clients cannot work with your site until then.`) : notice(text);
}

/** One table per profile URL (its checks' names end with it), then the server's checks. */
function results(checks: readonly CheckResult[], profileUrls: readonly string[]): SafeHtml {
  const about = (me: string) => (check: CheckResult) => check.name.endsWith(` ${me}`);
  const homepages = profileUrls.map((me) =>
    checkTable(
      html`Your homepage <a href="${me}">${wrappable(me)}</a>, as an app signing in with it sees it`,
      checks.filter(about(me)),
      me,
    ),
  );
  const server = checks.filter((check) => !profileUrls.some((me) => about(me)(check)));
  return html`<h2>Results</h2>
${summary(checks)}
${homepages}
${checkTable(html`This server, as apps reach it, and what it stands on`, server)}
<p>If someone else runs this server, send them its failures: the fixes are theirs.</p>`;
}

export function setupPage(app: FastifyInstance, deps: SetupPageDeps): void {
  const { doctor, baseUrl } = deps;

  function sendSetupPage(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: { checks?: readonly CheckResult[]; busy?: boolean },
  ): FastifyReply {
    const { csrf, user } = sessionOf(request);
    const content = html`<p>Checks your site from the outside, as an app signing in with it would:
that this server answers at its public address and gets the Authorization header through any proxy,
that your homepage links this server and has an h-card, and that the database, media storage and background jobs work.
It takes a few seconds.</p>
${outcome.busy === true ? errorAlert('A check of your setup is already running. Wait until it has finished, then try again.') : ''}
${buttonForm({ action: `${ADMIN}/setup/`, csrf, label: outcome.checks === undefined ? 'Check my setup' : 'Check again' })}
${outcome.checks === undefined ? '' : results(outcome.checks, user.me)}
<h2 id="${LINKS_ID}">${LINKS_HEADING}</h2>
<p>Put these in the head of your homepage, or send the same links in a Link header: apps find this server through them.</p>
<label for="${LINKS_ID}-tags">Link tags</label>
<textarea id="${LINKS_ID}-tags" readonly rows="6">${linkTags(baseUrl)}</textarea>`;
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
    request.log.info(
      { userId: user.id, failed: run.checks.filter((check) => check.status === 'FAIL').map((check) => check.name) },
      'setup checked',
    );
    return sendSetupPage(request, reply, { checks: run.checks });
  });
}
