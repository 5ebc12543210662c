/**
 * The doctor's checks from the outside, as a client would see the server:
 * the base URL, the Authorization header through the public URL, each
 * profile URL's links, h-card and spelling, and the clocks. Every fetch goes
 * through the outbound guard (private addresses refused unless
 * INDIEWEB_ALLOW_PRIVATE_NETWORKS, at most 5 redirects, time and size caps);
 * an unreachable page is a FAIL, never a crash. No secret is ever sent: the
 * Authorization probe carries a random value that is no token.
 * @module
 */
import { randomToken } from '../../core/crypto.js';
import { ParseFailure } from '../../html/pool.js';
import type { HomePage } from './home-page.js';
import type { Outbound, OutboundResponse } from '../../outbound/fetch.js';
import { advertisedLinks, type AdvertisedLink } from './advertised-links.js';
import { fail, pass, warn, type CheckResult } from './check.js';
import { SELF_TEST_PATH, type AuthorizationEcho } from './http.js';

/** The module whose `readHomePage` the parse pool runs. */
const HOME_PAGE_MODULE = new URL('./home-page.js', import.meta.url);

const PROXY_FIX =
  'pass the header through: nginx `proxy_set_header Authorization $http_authorization;`, Apache `CGIPassAuth On` (or `SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1`), Caddy passes it unless a `header_up -Authorization` removes it; a proxy that sends X-Forwarded-Authorization instead needs INDIEWEB_TRUST_PROXY=true';

/** What a remote check saw; the Date headers feed the clock check. */
export interface RemoteContext {
  readonly outbound: Outbound;
  readonly baseUrl: string;
  readonly now: () => Date;
  /** Date headers of the answers, with the local time each arrived. */
  readonly dates: { readonly header: string; readonly at: Date; readonly from: string }[];
}

async function fetchPage(context: RemoteContext, url: string, headers: Record<string, string> = {}): Promise<OutboundResponse> {
  const response = await context.outbound.fetch(url, { headers, truncate: true });
  const date = response.headers['date'];
  if (typeof date === 'string') context.dates.push({ header: date, at: context.now(), from: new URL(response.url).host });
  return response;
}

const why = (error: unknown) => (error instanceof Error ? error.message : String(error));

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

export async function checkBaseUrl(context: RemoteContext): Promise<CheckResult> {
  const name = 'base-url';
  const base = new URL(context.baseUrl);
  const url = `${context.baseUrl}/indieweb/metadata`;
  let response: OutboundResponse;
  try {
    response = await fetchPage(context, url, { accept: 'application/json' });
  } catch (error) {
    return fail(
      name,
      `${context.baseUrl} cannot be reached from here (${why(error)})`,
      'give --base-url (INDIEWEB_BASE_URL) the public address of this server, and check DNS, the proxy and the firewall',
    );
  }
  let issuer: unknown = null;
  try {
    issuer = (JSON.parse(response.body.toString('utf8')) as { issuer?: unknown }).issuer;
  } catch {
    // not JSON: not our metadata
  }
  if (response.status !== 200 || issuer !== `${context.baseUrl}/`) {
    return fail(
      name,
      `${url} answers ${response.status}${typeof issuer === 'string' ? ` with issuer ${issuer}` : ' without indiestack metadata'}: the base URL does not lead to this server`,
      'set INDIEWEB_BASE_URL (or --base-url) to the public URL your proxy forwards to this server, the same for serve and the CLI',
    );
  }
  if (base.protocol !== 'https:') {
    if (isLoopbackHost(base.host))
      return warn(
        name,
        `${context.baseUrl} answers, over http on this machine only`,
        'fine for trying out; on the internet serve https and set INDIEWEB_BASE_URL to the https address',
      );
    return fail(
      name,
      `${context.baseUrl} answers, but over http: sign-in cookies are not Secure and clients expect https`,
      'put a TLS proxy in front and set INDIEWEB_BASE_URL to the https:// address',
    );
  }
  return pass(name, `${context.baseUrl} answers over https with this server's metadata`);
}

export async function checkAuthorizationHeader(context: RemoteContext): Promise<CheckResult> {
  const name = 'authorization-header';
  const url = `${context.baseUrl}/indieweb${SELF_TEST_PATH}`;
  let response: OutboundResponse;
  try {
    // a random probe, not a token: nothing secret leaves this machine
    response = await fetchPage(context, url, { authorization: `Bearer doctor-probe-${randomToken(16)}`, accept: 'application/json' });
  } catch (error) {
    return fail(name, `the self-test at ${url} cannot be reached (${why(error)})`, 'fix base-url first');
  }
  let echo: AuthorizationEcho | null = null;
  try {
    echo = JSON.parse(response.body.toString('utf8')) as AuthorizationEcho;
  } catch {
    // not the self-test
  }
  if (response.status !== 200 || echo === null || typeof echo.bearer !== 'boolean') {
    return fail(
      name,
      `${url} answers ${response.status}, not the self-test: the base URL does not lead to this version of indiestack`,
      'point INDIEWEB_BASE_URL at this server',
    );
  }
  if (echo.bearer)
    return pass(
      name,
      `an Authorization header sent to ${context.baseUrl} arrives${echo.via === 'x-forwarded-authorization' ? ' (as X-Forwarded-Authorization, trusted)' : ''}`,
    );
  if (echo.forwardedIgnored) {
    return fail(
      name,
      'the proxy forwards the token as X-Forwarded-Authorization, which is ignored while INDIEWEB_TRUST_PROXY is off: every Micropub request would get 401',
      'set INDIEWEB_TRUST_PROXY=true (only behind a proxy that sets that header itself)',
    );
  }
  return fail(
    name,
    `an Authorization header sent to ${context.baseUrl} does not reach the server: every Micropub and media request would get 401`,
    PROXY_FIX,
  );
}

/** Where the account's link tags can be had, as the fixes name it. */
export interface LinksHint {
  /** Completes "add the links … to the <head> of ME", e.g. "`indiestack links alice` prints". */
  readonly where: string;
  /** In parentheses after "replace it with URL", e.g. "`indiestack links alice`". */
  readonly short: string;
}

/** The hint of the command line: the `indiestack links` command that prints the tags. */
export function linksCommandHint(command: string): LinksHint {
  return { where: `\`${command}\` prints`, short: `\`${command}\`` };
}

/** Lowercased scheme and host, an empty path as `/`, no fragment: how profile URLs are compared. */
function comparable(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

interface ExpectedLink {
  readonly rel: string;
  readonly urls: readonly string[];
  /** A missing link fails (true) or only warns. */
  readonly required: boolean;
  readonly missing: string;
}

function expectedLinks(baseUrl: string, found: Readonly<Record<string, readonly AdvertisedLink[]>>): ExpectedLink[] {
  const hasLegacy = (found['authorization_endpoint'] ?? []).length > 0;
  const hasMetadata = (found['indieauth-metadata'] ?? []).length > 0;
  return [
    {
      rel: 'indieauth-metadata',
      urls: [`${baseUrl}/.well-known/oauth-authorization-server`, `${baseUrl}/indieweb/metadata`],
      required: !hasLegacy,
      missing: 'current IndieAuth clients find the server through it',
    },
    {
      rel: 'authorization_endpoint',
      urls: [`${baseUrl}/indieweb/auth/`],
      required: !hasMetadata,
      missing: 'older IndieAuth clients look for it',
    },
    { rel: 'token_endpoint', urls: [`${baseUrl}/indieweb/token/`], required: false, missing: 'older IndieAuth clients look for it' },
    { rel: 'micropub', urls: [`${baseUrl}/indieweb/micropub/`], required: false, missing: 'Micropub clients cannot find where to publish' },
    { rel: 'webmention', urls: [`${baseUrl}/indieweb/webmention/`], required: false, missing: 'other sites cannot send you webmentions' },
  ];
}

const REL_NAMES = ['indieauth-metadata', 'authorization_endpoint', 'token_endpoint', 'micropub', 'webmention'] as const;

/** Judges one rel: clients take the first URL they find (the Link header before the HTML). */
function checkLink(link: ExpectedLink, found: readonly AdvertisedLink[], me: string, linksHint: LinksHint): CheckResult {
  const name = `profile-link ${link.rel} ${me}`;
  const ours = (url: string) => link.urls.map(comparable).includes(comparable(url));
  const first = found[0];
  if (first === undefined) {
    const message = `${me} has no rel="${link.rel}" link (neither in a Link header nor in the HTML): ${link.missing}`;
    const fix = `add the links ${linksHint.where} to the <head> of ${me}`;
    return link.required ? fail(name, message, fix) : warn(name, message, fix);
  }
  if (!ours(first.url)) {
    const later = found.find((candidate) => ours(candidate.url));
    if (later !== undefined) {
      return fail(
        name,
        `${me} links rel="${link.rel}" to ${first.url} (${first.from}) before this server's ${later.url} (${later.from}): clients take the first one`,
        `remove the rel="${link.rel}" link to ${first.url}${first.from === 'Link header' ? ' from the Link header your web server sends' : ''}`,
      );
    }
    const where = first.from === 'Link header' ? ' in the Link header your web server sends' : '';
    return fail(
      name,
      `${me} links rel="${link.rel}" to ${first.url}${first.from === 'Link header' ? ' (Link header)' : ''}, not this server (an old endpoint?)`,
      `replace it${where} with ${link.urls[0]} (${linksHint.short})`,
    );
  }
  return pass(name, `points at this server${first.from === 'Link header' ? ' (Link header)' : ''}`);
}

/** Checks one profile URL: can it be fetched, is it spelled as clients will compare it, its links and its h-card. */
export async function checkProfile(context: RemoteContext, me: string, linksHint: LinksHint): Promise<CheckResult[]> {
  let response: OutboundResponse;
  try {
    response = await fetchPage(context, me, { accept: 'text/html' });
  } catch (error) {
    return [
      fail(
        `profile ${me}`,
        `cannot fetch it (${why(error)}): clients signing in with it cannot either`,
        'publish the page at that address, or add the address you do publish to the account',
      ),
    ];
  }
  if (response.status !== 200)
    return [
      fail(`profile ${me}`, `answers ${response.status}: clients signing in with it cannot read it`, 'publish the page at that address'),
    ];
  const checks: CheckResult[] = [];

  const spelling = `me-spelling ${me}`;
  if (comparable(response.url) !== comparable(me)) {
    checks.push(
      fail(
        spelling,
        `${me} redirects to ${response.url}: clients sign in with the address they end up at, which is not the account's profile URL, so the sign-in is refused`,
        `make ${response.url} the account's profile URL (indiestack user add NAME --me ${response.url}) or stop the redirect`,
      ),
    );
  } else if (new URL(me).protocol !== 'https:') {
    checks.push(
      warn(
        spelling,
        `${me} is http: clients increasingly expect https profile URLs`,
        'serve your homepage over https and use the https address as the profile URL',
      ),
    );
  } else checks.push(pass(spelling, `${me} is the address clients end up at`));

  const type = response.headers['content-type'];
  const isHtml = typeof type !== 'string' || /html/i.test(type);
  let parsed: HomePage | null = null;
  if (isHtml) {
    try {
      parsed = await context.outbound.read<HomePage>(HOME_PAGE_MODULE, 'readHomePage', [response.body.toString('utf8'), response.url]);
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error;
      checks.push(
        fail(
          `profile-links ${me}`,
          `the page cannot be read: ${error.message}`,
          'serve a smaller, simpler homepage: clients give up on it too',
        ),
      );
      return checks;
    }
  }
  const found = Object.fromEntries(REL_NAMES.map((rel) => [rel, advertisedLinks(response, parsed?.rels ?? null, rel)]));
  if (parsed === null && Object.values(found).every((links) => links.length === 0)) {
    checks.push(
      fail(
        `profile-links ${me}`,
        `answers ${type}, not HTML, and sends no Link header: no links can be found`,
        'serve the homepage as text/html',
      ),
    );
    return checks;
  }
  for (const link of expectedLinks(context.baseUrl, found)) checks.push(checkLink(link, found[link.rel] ?? [], me, linksHint));
  if (parsed === null) {
    checks.push(
      warn(
        `h-card ${me}`,
        `${me} answers ${type}, not HTML: apps find no h-card, so no name or photo for you`,
        'serve an HTML homepage with an h-card',
      ),
    );
    return checks;
  }
  const card = parsed.card;
  if (card === null)
    checks.push(
      warn(
        `h-card ${me}`,
        `${me} has no h-card: apps show no name or photo for you`,
        'add an h-card to the page (`indiestack profile show NAME`; renderHCard renders one)',
      ),
    );
  else {
    const name = card.name;
    checks.push(pass(`h-card ${me}`, `h-card found${name !== null ? ` (name: ${name.slice(0, 60)})` : ''}`));
  }
  return checks;
}

/** The local clock against the Date headers seen (this server's and the profile pages' hosts). */
export function checkClock(context: RemoteContext): CheckResult {
  const name = 'clock';
  const now = context.now();
  if (now.getUTCFullYear() < 2025)
    return fail(name, `this machine's clock says ${now.toISOString()}`, 'set the clock (NTP: systemd-timesyncd, chrony)');
  let worst: { skew: number; from: string } | null = null;
  for (const date of context.dates) {
    const remote = Date.parse(date.header);
    if (Number.isNaN(remote)) continue;
    const skew = (date.at.getTime() - remote) / 1000;
    if (worst === null || Math.abs(skew) > Math.abs(worst.skew)) worst = { skew, from: date.from };
  }
  if (worst === null)
    return warn(name, 'no answer carried a Date header to compare the clock with', 'check that the machine syncs its clock (NTP)');
  const seconds = Math.round(Math.abs(worst.skew));
  // Date headers have whole seconds: a couple of seconds is noise
  if (seconds > 300)
    return fail(
      name,
      `this clock and ${worst.from}'s differ by ${seconds} s: codes and tokens expire at the wrong time`,
      'sync the clocks (NTP: systemd-timesyncd, chrony)',
    );
  if (seconds > 30) return warn(name, `this clock and ${worst.from}'s differ by ${seconds} s`, 'sync the clocks (NTP)');
  return pass(name, `within ${Math.max(seconds, 1)} s of ${worst.from}`);
}
