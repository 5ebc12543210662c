/**
 * The two scripts of the passkey forms: `@simplewebauthn/browser`'s own
 * bundle, served from the installed package, and ours (browser-script.ts).
 * Pages name them with {@link passkeyScripts}, which the CSP then allows.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendStaticAsset, staticAsset, type StaticAsset } from '../../web/static-asset.js';
import { PASSKEYS_SCRIPT } from './browser-script.js';
import { PASSKEY_LIBRARY_PATH as LIBRARY_PATH, PASSKEY_SCRIPT_PATH as SCRIPT_PATH, routePath } from './paths.js';

/** The absolute URLs of the scripts a passkey form needs, in load order. */
export function passkeyScripts(baseUrl: string): readonly string[] {
  return [`${baseUrl}${LIBRARY_PATH}`, `${baseUrl}${SCRIPT_PATH}`];
}

let library: Promise<string> | undefined;

/** The library's browser bundle (it defines `window.SimpleWebAuthnBrowser`), read once. */
function libraryBundle(): Promise<string> {
  if (library === undefined) {
    // the package exports only its entry points: the bundle is found beside the CommonJS one
    const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
    library = readFile(path.join(path.dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
    library.catch(() => {
      library = undefined;
    });
  }
  return library;
}

const assets = new Map<string, StaticAsset>();

function sendScript(request: FastifyRequest, reply: FastifyReply, text: string): FastifyReply {
  let asset = assets.get(text);
  if (asset === undefined) assets.set(text, (asset = staticAsset('text/javascript; charset=utf-8', text)));
  return sendStaticAsset(request, reply, asset, false);
}

/** Registers the two script routes (under the plugin's `/indieweb` prefix). */
export function passkeyAssetRoutes(app: FastifyInstance): void {
  app.get(routePath(LIBRARY_PATH), async (request, reply) => sendScript(request, reply, await libraryBundle()));
  app.get(routePath(SCRIPT_PATH), async (request, reply) => sendScript(request, reply, PASSKEYS_SCRIPT));
}
