/**
 * Which URLs a page may put into `href` and `src`: absolute http(s) only, so
 * stored or remote values never become `javascript:` links (the rule is
 * core/http-url.ts, shared with the webmention APIs).
 * @module
 */
export { httpUrl } from '../core/http-url.js';
