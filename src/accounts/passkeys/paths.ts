/** Where the passkey routes answer (full paths, the plugin's `/indieweb` prefix included). */
export const PASSKEY_SIGN_IN_PATH = '/indieweb/login/passkey';
export const PASSKEY_SIGN_IN_OPTIONS_PATH = '/indieweb/login/passkey/options';
export const PASSKEY_LIBRARY_PATH = '/indieweb/assets/simplewebauthn-browser.js';
export const PASSKEY_SCRIPT_PATH = '/indieweb/assets/passkeys.js';

/** A full path as registered inside the plugin's `/indieweb` scope. */
export function routePath(fullPath: string): string {
  return fullPath.replace(/^\/indieweb/, '');
}
