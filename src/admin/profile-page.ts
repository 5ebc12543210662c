/**
 * Profile: the h-card as a form (one field per common property) and as raw
 * JSON. A rejected save shows every problem (by its field, or above the JSON)
 * and stores nothing.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readParam } from '../core/params.js';
import { HCardValidationError, type HCardProblem } from '../profile/h-card.js';
import type { ProfileService } from '../profile/service.js';
import type { HCard } from '../storage/repositories/profiles.js';
import { html } from '../web/html.js';
import { postForm } from '../web/ui/csrf-form.js';
import { field } from '../web/ui/field.js';
import { errorSummary } from '../web/ui/messages.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

/** The fields of the profile form and the h-card property each edits (one value per line for lists). */
const FORM_FIELDS = [
  { name: 'name', label: 'Name', list: false, multiline: false },
  { name: 'url', label: 'Web sites (one per line)', list: true, multiline: true },
  { name: 'photo', label: 'Photo URL', list: false, multiline: false },
  { name: 'email', label: 'E-mail addresses (one per line)', list: true, multiline: true },
  { name: 'note', label: 'About you', list: false, multiline: true },
] as const;

/** Fields are read whole (the body limit bounds them) so that an oversized value gets a form error, not a bare 400. */
const FIELD_READ_LIMIT = 10 * 1024 * 1024;

export interface ProfilePageDeps {
  readonly profiles: ProfileService;
  readonly baseUrl: string;
}

/** Which form a rejected save came from: its problems are shown there. */
type Rejected = { readonly from: 'fields' | 'json'; readonly problems: readonly HCardProblem[]; readonly json?: string };

/** The form's value of each field: single-value fields edit the first value; further values (set through JSON) are kept. */
function fieldValue(card: HCard, formField: (typeof FORM_FIELDS)[number]): string {
  const values = formField.list ? (card[formField.name] ?? []) : (card[formField.name] ?? []).slice(0, 1);
  return values.map((value) => (formField.name === 'email' ? value.replace(/^mailto:/i, '') : value)).join('\n');
}

/** The submitted form applied to the stored h-card: list fields replace the property, single fields its first value. */
function cardFromForm(body: unknown, current: HCard): Record<string, string[]> {
  const card: Record<string, string[]> = { ...current };
  for (const formField of FORM_FIELDS) {
    const raw = readParam(body, formField.name, FIELD_READ_LIMIT) ?? '';
    const value = raw.trim();
    const next = formField.list
      ? raw
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter((line) => line !== '')
      : value === ''
        ? (current[formField.name] ?? []).slice(1)
        : [value, ...(current[formField.name] ?? []).slice(1)];
    if (next.length === 0) delete card[formField.name];
    else card[formField.name] = next;
  }
  return card;
}

function sendProfilePage(request: FastifyRequest, reply: FastifyReply, card: HCard, rejected?: Rejected): FastifyReply {
  const { user, csrf } = sessionOf(request);
  const problems = rejected?.problems ?? [];
  const fieldProblems = rejected?.from === 'fields' ? problems : [];
  const isFormField = (name: string) => FORM_FIELDS.some((formField) => formField.name === name);
  const fields = FORM_FIELDS.map((formField) =>
    field({
      name: formField.name,
      label: formField.label,
      value: fieldValue(card, formField),
      multiline: formField.multiline,
      errors: fieldProblems.filter((problem) => problem.field === formField.name).map((problem) => problem.message),
    }),
  );
  const jsonInvalid = rejected?.from === 'json' && problems.length > 0 ? html` aria-invalid="true" aria-describedby="json-problems"` : '';
  const json = rejected?.json ?? JSON.stringify(card, null, 2);
  const content = html`<p class="lead">Your h-card: what apps and other sites show about you.
Public page: <a href="/indieweb/profile/${user.name}/">/indieweb/profile/${user.name}/</a></p>
<div class="columns">
<section class="panel" aria-labelledby="card-heading"><h2 id="card-heading">Your card</h2>
${rejected?.from === 'fields' ? errorSummary(problems.filter((problem) => !isFormField(problem.field))) : ''}
${postForm({ action: `${ADMIN}/profile/`, csrf, content: html`${fields}<button type="submit">Save profile</button>` })}
</section>
<section class="panel" aria-labelledby="json-heading">
<h2 id="json-heading">Raw h-card (JSON)</h2>
<p>Every microformats property, as lists of values. Saved as a whole.</p>
${rejected?.from === 'json' ? errorSummary(problems, 'json-problems') : ''}
${postForm({
  action: `${ADMIN}/profile/json`,
  csrf,
  content: html`<label for="field-json">h-card JSON</label>
<textarea id="field-json" name="h_card" rows="12"${jsonInvalid}>${json}</textarea><button type="submit">Save JSON</button>`,
})}
</section>
</div>`;
  return sendAdminPage(request, reply, { title: 'Profile', content, status: problems.length > 0 ? 400 : 200 });
}

export function profilePage(app: FastifyInstance, deps: ProfilePageDeps): void {
  const { profiles, baseUrl } = deps;

  app.get('/profile/', async (request, reply) => sendProfilePage(request, reply, (await profiles.get(sessionOf(request).user)).hCard));

  app.post('/profile/', async (request, reply) => {
    const { user } = sessionOf(request);
    const card = cardFromForm(request.body, (await profiles.get(user)).hCard);
    try {
      await profiles.update(user, card);
    } catch (error) {
      if (error instanceof HCardValidationError) return sendProfilePage(request, reply, card, { from: 'fields', problems: error.problems });
      throw error;
    }
    return redirectDone(reply, baseUrl, '/profile/', 'saved');
  });

  app.post('/profile/json', async (request, reply) => {
    const { user } = sessionOf(request);
    const json = readParam(request.body, 'h_card', FIELD_READ_LIMIT) ?? '';
    const current = (await profiles.get(user)).hCard;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return sendProfilePage(request, reply, current, {
        from: 'json',
        problems: [{ field: 'h_card', message: 'is not valid JSON' }],
        json,
      });
    }
    try {
      await profiles.update(user, parsed);
    } catch (error) {
      if (error instanceof HCardValidationError)
        return sendProfilePage(request, reply, current, { from: 'json', problems: error.problems, json });
      throw error;
    }
    return redirectDone(reply, baseUrl, '/profile/', 'saved');
  });
}
