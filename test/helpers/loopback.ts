/**
 * A test app served on 127.0.0.1 and a browser-like client for it: real
 * HTTP through `fetch`, cookies kept in a {@link CookieJar}, redirects not
 * followed (a test reads them).
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { CookieJar, form, hiddenField } from './app.js';

export interface LoopbackResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** The Location header, or null. */
  readonly location: string | null;
}

/** Starts listening on a free loopback port; returns the origin (`http://127.0.0.1:PORT`). */
export async function serveOnLoopback(app: FastifyInstance): Promise<string> {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return address.replace('localhost', '127.0.0.1');
}

/** A browser of one person: its own cookie jar, GET and form POST over the socket. */
export class LoopbackBrowser {
  readonly jar: CookieJar;

  constructor(
    readonly origin: string,
    jar = new CookieJar(),
  ) {
    this.jar = jar;
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    options: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<LoopbackResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const cookie = this.jar.header();
    if (cookie !== '') headers.cookie = cookie;
    if (options.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(options.form === undefined ? {} : { body: form(options.form) }),
    });
    this.jar.store(response.headers.getSetCookie());
    return { status: response.status, headers: response.headers, body: await response.text(), location: response.headers.get('location') };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<LoopbackResponse> {
    return this.request('GET', path, { headers });
  }

  post(path: string, fields: Record<string, string>): Promise<LoopbackResponse> {
    return this.request('POST', path, { form: fields });
  }

  /** Loads `pagePath` for its CSRF token, then posts `fields` with it to `postPath`. */
  async submit(pagePath: string, postPath: string, fields: Record<string, string>): Promise<LoopbackResponse> {
    const page = await this.get(pagePath);
    if (page.status !== 200) throw new Error(`${pagePath} answered ${page.status}`);
    return this.post(postPath, { _csrf: hiddenField(page.body, '_csrf'), ...fields });
  }

  /** Signs in through the login form; throws unless it redirects (303). */
  async signIn(username: string, password: string): Promise<LoopbackResponse> {
    const answer = await this.submit('/indieweb/login/', '/indieweb/login/', { username, password, return_to: '/indieweb/' });
    if (answer.status !== 303) throw new Error(`sign-in failed with ${answer.status}`);
    return answer;
  }
}
