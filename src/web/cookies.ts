import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string' || header === '') return undefined;
  return parseCookie(header)[name];
}

export interface CookieOptions {
  readonly secure: boolean;
  readonly maxAge?: number;
  readonly sameSite?: 'lax' | 'strict';
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  reply.header(
    'set-cookie',
    appendCookie(
      reply.getHeader('set-cookie'),
      stringifySetCookie({
        name,
        value,
        path: '/',
        httpOnly: true,
        sameSite: options.sameSite ?? 'lax',
        secure: options.secure,
        ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge }),
      }),
    ),
  );
}

export function clearCookie(reply: FastifyReply, name: string, options: { secure: boolean }): void {
  setCookie(reply, name, '', { ...options, maxAge: 0 });
}

function appendCookie(existing: unknown, cookie: string): string[] {
  if (existing === undefined) return [cookie];
  return [...(Array.isArray(existing) ? existing.map(String) : [String(existing)]), cookie];
}
