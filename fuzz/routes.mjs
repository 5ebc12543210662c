/**
 * Every route and method indiestack serves (from the `app.get(`/`.post(`
 * calls in src/), each with one valid request the generators start from.
 * `{{NAME}}` placeholders are filled from the server's fixtures when a case
 * is put on the wire (server.mjs `fixtures()`).
 *
 * auth: `token` (bearer of the fixture user), `session` (signed-in cookie),
 * `csrf` (cookie and the form's `_csrf`), `none`.
 * allow501: SPEC.md's 501 `not_implemented` may answer here.
 * guarded: the valid request would revoke the fixtures' own credentials, so
 * the generated request never carries the real CSRF token.
 */
const png = { name: 'file', filename: 'a.png', type: 'image/png', data: 'PNG' };
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const authQuery = [
  ['response_type', 'code'],
  ['client_id', 'https://app.example/'],
  ['redirect_uri', 'https://app.example/callback'],
  ['state', 'xyz'],
  ['me', '{{BASE}}/'],
  ['scope', 'create update'],
  ['code_challenge', challenge],
  ['code_challenge_method', 'S256'],
];

export const ROUTES = [
  { id: 'healthz', method: 'GET', path: '/healthz', auth: 'none' },
  { id: 'root', method: 'GET', path: '/', auth: 'none' },
  { id: 'well-known-metadata', method: 'GET', path: '/.well-known/oauth-authorization-server', auth: 'none' },
  { id: 'metadata', method: 'GET', path: '/indieweb/metadata', auth: 'none' },
  { id: 'auth-get', method: 'GET', path: '/indieweb/auth/', auth: 'session', query: authQuery },
  {
    id: 'auth-consent',
    method: 'POST',
    path: '/indieweb/auth/consent/',
    auth: 'csrf',
    body: { type: 'form', fields: [...authQuery, ['decision', 'approve']] },
  },
  {
    id: 'auth-verify',
    method: 'POST',
    path: '/indieweb/auth/',
    auth: 'none',
    body: {
      type: 'form',
      fields: [
        ['grant_type', 'authorization_code'],
        ['code', 'abc'],
        ['client_id', 'https://app.example/'],
        ['redirect_uri', 'https://app.example/callback'],
        ['code_verifier', 'x'.repeat(43)],
      ],
    },
  },
  {
    id: 'token',
    method: 'POST',
    path: '/indieweb/token/',
    auth: 'none',
    body: {
      type: 'form',
      fields: [
        ['grant_type', 'authorization_code'],
        ['code', 'abc'],
        ['client_id', 'https://app.example/'],
        ['redirect_uri', 'https://app.example/callback'],
        ['code_verifier', 'x'.repeat(43)],
        ['me', '{{BASE}}/'],
      ],
    },
  },
  {
    id: 'token-refresh',
    method: 'POST',
    path: '/indieweb/token/',
    auth: 'none',
    body: {
      type: 'form',
      fields: [
        ['grant_type', 'refresh_token'],
        ['refresh_token', 'abc'],
        ['client_id', 'https://app.example/'],
      ],
    },
  },
  { id: 'token-verify', method: 'GET', path: '/indieweb/token/', auth: 'token' },
  {
    id: 'token-revoke',
    method: 'POST',
    path: '/indieweb/token/revoke',
    auth: 'none',
    body: { type: 'form', fields: [['token', 'not-a-token']] },
  },
  {
    id: 'token-introspect',
    method: 'POST',
    path: '/indieweb/token/introspect',
    auth: 'token',
    body: { type: 'form', fields: [['token', '{{SPARE_TOKEN}}']] },
  },
  { id: 'userinfo', method: 'GET', path: '/indieweb/userinfo', auth: 'token' },
  { id: 'micropub-get', method: 'GET', path: '/indieweb/micropub/', auth: 'token', query: [] },
  { id: 'micropub-config', method: 'GET', path: '/indieweb/micropub/', auth: 'token', query: [['q', 'config']] },
  {
    id: 'micropub-source',
    method: 'GET',
    path: '/indieweb/micropub/',
    auth: 'token',
    allow501: true,
    query: [
      ['q', 'source'],
      ['url', '{{ENTRY}}'],
      ['properties[]', 'content'],
    ],
  },
  {
    id: 'micropub-list',
    method: 'GET',
    path: '/indieweb/micropub/',
    auth: 'token',
    allow501: true,
    query: [
      ['q', 'source'],
      ['limit', '5'],
      ['offset', '0'],
      ['filter', 'fuzz'],
    ],
  },
  {
    id: 'micropub-queries',
    method: 'GET',
    path: '/indieweb/micropub/',
    auth: 'token',
    query: [
      ['q', 'post-types'],
      ['post-type', 'note'],
      ['filter', 'n'],
      ['limit', '2'],
      ['offset', '0'],
    ],
  },
  {
    id: 'micropub-form',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: {
      type: 'form',
      fields: [
        ['h', 'entry'],
        ['content', 'hello'],
        ['category', 'a,b'],
        ['mp-slug', 'hello'],
        ['photo', 'https://example.com/a.png'],
      ],
    },
  },
  { id: 'micropub-syndicate-to', method: 'GET', path: '/indieweb/micropub/', auth: 'token', query: [['q', 'syndicate-to']] },
  {
    id: 'micropub-syndicate-create',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: {
      type: 'form',
      fields: [
        ['h', 'entry'],
        ['content', 'hello'],
        ['mp-syndicate-to', 'nothere'],
        ['mp-syndicate-to[]', 'other'],
      ],
    },
  },
  {
    id: 'micropub-json',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: {
      type: 'json',
      json: { type: ['h-entry'], properties: { content: ['hello'], category: ['a'], 'in-reply-to': ['https://example.com/'] } },
    },
  },
  {
    id: 'micropub-update',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: {
      type: 'json',
      json: { action: 'update', url: '{{ENTRY}}', replace: { content: ['new'] }, add: { category: ['x'] }, delete: ['summary'] },
    },
  },
  {
    id: 'micropub-delete',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: {
      type: 'form',
      fields: [
        ['action', 'delete'],
        ['url', '{{ENTRY}}'],
      ],
    },
  },
  {
    id: 'micropub-undelete',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: { type: 'json', json: { action: 'undelete', url: '{{ENTRY}}' } },
  },
  {
    id: 'micropub-multipart',
    method: 'POST',
    path: '/indieweb/micropub/',
    auth: 'token',
    body: {
      type: 'multipart',
      parts: [
        { name: 'h', data: 'entry' },
        { name: 'content', data: 'hello' },
        { ...png, name: 'photo' },
      ],
    },
  },
  { id: 'media-upload', method: 'POST', path: '/indieweb/media/', auth: 'token', body: { type: 'multipart', parts: [png] } },
  {
    id: 'media-list',
    method: 'GET',
    path: '/indieweb/media/',
    auth: 'token',
    allow501: true,
    query: [
      ['q', 'source'],
      ['limit', '3'],
      ['offset', '0'],
    ],
  },
  {
    id: 'media-metadata',
    method: 'GET',
    path: '/indieweb/media/',
    auth: 'token',
    allow501: true,
    query: [
      ['q', 'source'],
      ['url', '{{MEDIA}}'],
    ],
  },
  {
    id: 'media-delete',
    method: 'POST',
    path: '/indieweb/media/',
    auth: 'token',
    allow501: true,
    body: {
      type: 'form',
      fields: [
        ['action', 'delete'],
        ['url', '{{BASE}}/indieweb/media/notthere0000000000.png'],
      ],
    },
  },
  { id: 'media-file', method: 'GET', path: '{{MEDIA_PATH}}', auth: 'none' },
  { id: 'media-variant', method: 'GET', path: '{{MEDIA_PATH}}', auth: 'none', query: [['w', '640']] },
  {
    id: 'webmention-receive',
    method: 'POST',
    path: '/indieweb/webmention/',
    auth: 'none',
    body: {
      type: 'form',
      fields: [
        ['source', 'https://source.invalid/a'],
        ['target', '{{BASE}}/'],
      ],
    },
  },
  {
    id: 'webmention-read',
    method: 'GET',
    path: '/indieweb/webmention/',
    auth: 'none',
    query: [
      ['target', '{{BASE}}/'],
      ['limit', '10'],
      ['offset', '0'],
    ],
  },
  { id: 'webmention-status', method: 'GET', path: '{{WEBMENTION_PATH}}', auth: 'none' },
  { id: 'profile', method: 'GET', path: '/indieweb/profile/{{USER}}/', auth: 'none' },
  { id: 'login-page', method: 'GET', path: '/indieweb/login/', auth: 'none', query: [['return_to', '/indieweb/admin/']] },
  {
    id: 'login',
    method: 'POST',
    path: '/indieweb/login/',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['return_to', '/indieweb/'],
        ['username', 'fuzz'],
        ['password', 'wrong password'],
      ],
    },
  },
  { id: 'logout-page', method: 'GET', path: '/indieweb/logout/', auth: 'session' },
  {
    id: 'logout',
    method: 'POST',
    path: '/indieweb/logout/',
    auth: 'csrf',
    guarded: true,
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  { id: 'home', method: 'GET', path: '/indieweb/', auth: 'session' },
  { id: 'admin', method: 'GET', path: '/indieweb/admin/', auth: 'session' },
  { id: 'admin-profile-page', method: 'GET', path: '/indieweb/admin/profile/', auth: 'session' },
  {
    id: 'admin-profile',
    method: 'POST',
    path: '/indieweb/admin/profile/',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['name', 'Fuzz'],
        ['url', '{{BASE}}/'],
        ['photo', 'https://example.com/a.png'],
        ['note', 'hi'],
      ],
    },
  },
  {
    id: 'admin-profile-json',
    method: 'POST',
    path: '/indieweb/admin/profile/json',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['h_card', '{"type":["h-card"],"properties":{"name":["Fuzz"]}}'],
      ],
    },
  },
  { id: 'admin-apps', method: 'GET', path: '/indieweb/admin/apps/', auth: 'session' },
  {
    id: 'admin-apps-revoke',
    method: 'POST',
    path: '/indieweb/admin/apps/revoke',
    auth: 'csrf',
    guarded: true,
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['token_id', '1'],
      ],
    },
  },
  {
    id: 'admin-apps-revoke-client',
    method: 'POST',
    path: '/indieweb/admin/apps/revoke-client',
    auth: 'csrf',
    guarded: true,
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['client_id', 'https://fuzz-main.example/'],
      ],
    },
  },
  { id: 'admin-webmentions', method: 'GET', path: '/indieweb/admin/webmentions/', auth: 'session', query: [['status', 'pending']] },
  {
    id: 'admin-webmention-action',
    method: 'POST',
    path: '/indieweb/admin/webmentions/{{WEBMENTION_ID}}/approve',
    auth: 'csrf',
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  { id: 'admin-media', method: 'GET', path: '/indieweb/admin/media/', auth: 'session' },
  {
    id: 'admin-media-delete',
    method: 'POST',
    path: '/indieweb/admin/media/delete',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['id', 'nothere'],
      ],
    },
  },
  { id: 'admin-syndication', method: 'GET', path: '/indieweb/admin/syndication/', auth: 'session', query: [['offset', '0']] },
  {
    id: 'admin-syndication-add',
    method: 'POST',
    path: '/indieweb/admin/syndication/add',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['service', 'mastodon'],
        ['url', 'https://mastodon.invalid'],
        ['handle', ''],
        ['secret', 'token'],
      ],
    },
  },
  {
    id: 'admin-syndication-remove',
    method: 'POST',
    path: '/indieweb/admin/syndication/remove',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['uid', 'nothere'],
      ],
    },
  },
  {
    id: 'admin-syndication-retry',
    method: 'POST',
    path: '/indieweb/admin/syndication/retry',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['id', 'nothere'],
      ],
    },
  },
  { id: 'admin-account', method: 'GET', path: '/indieweb/admin/account/', auth: 'session' },
  {
    id: 'admin-password',
    method: 'POST',
    path: '/indieweb/admin/account/password',
    auth: 'csrf',
    guarded: true,
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['current', 'x'],
        ['password', 'y'],
        ['confirm', 'y'],
      ],
    },
  },
  {
    id: 'admin-sign-out-everywhere',
    method: 'POST',
    path: '/indieweb/admin/account/sign-out-everywhere',
    auth: 'csrf',
    guarded: true,
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  // issue 28 F6: the fresh-proof step and the sign-out-everywhere confirmation
  {
    id: 'admin-confirm-page',
    method: 'GET',
    path: '/indieweb/admin/confirm/',
    auth: 'session',
    query: [['then', '/indieweb/admin/passkeys/']],
  },
  {
    id: 'admin-confirm',
    method: 'POST',
    path: '/indieweb/admin/confirm/',
    auth: 'csrf',
    guarded: true,
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['password', 'x'],
        ['then', '/indieweb/admin/passkeys/'],
      ],
    },
  },
  {
    id: 'admin-confirm-options',
    method: 'POST',
    path: '/indieweb/admin/confirm/options',
    auth: 'csrf',
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  {
    id: 'admin-confirm-passkey',
    method: 'POST',
    path: '/indieweb/admin/confirm/passkey',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['response', '{}'],
      ],
    },
  },
  { id: 'admin-sign-out-everywhere-page', method: 'GET', path: '/indieweb/admin/account/sign-out-everywhere', auth: 'session' },
  {
    id: 'webmention-api-jf2',
    method: 'GET',
    path: '/indieweb/webmention/api/mentions.jf2',
    auth: 'none',
    query: [
      ['target', '{{BASE}}/'],
      ['per-page', '20'],
      ['page', '0'],
      ['sort-dir', 'down'],
      ['wm-property[]', 'like-of'],
    ],
  },
  {
    id: 'webmention-api-links',
    method: 'GET',
    path: '/indieweb/webmention/api/mentions.json',
    auth: 'none',
    query: [
      ['domain', '127.0.0.1'],
      ['since', '2026-01-01T00:00:00Z'],
      ['jsonp', 'cb'],
      ['token', 'not-a-token'],
    ],
  },
  {
    id: 'webmention-api-count',
    method: 'GET',
    path: '/indieweb/webmention/api/count.json',
    auth: 'none',
    query: [
      ['target[]', '{{BASE}}/'],
      ['target[]', '{{ENTRY}}'],
    ],
  },
  { id: 'webmention-deploy', method: 'POST', path: '/indieweb/webmention/deploy', auth: 'token', body: { type: 'form', fields: [] } },
  { id: 'entry-home', method: 'GET', path: '/{{USER}}/', auth: 'none', query: [['before', 'x']] },
  { id: 'entry-page', method: 'GET', path: '{{ENTRY_PATH}}', auth: 'none' },
  { id: 'entry-atom', method: 'GET', path: '/{{USER}}/feed.atom', auth: 'none' },
  { id: 'entry-json-feed', method: 'GET', path: '/{{USER}}/feed.json', auth: 'none' },
  { id: 'metrics', method: 'GET', path: '/metrics', auth: 'none' },
  { id: 'self-test', method: 'GET', path: '/indieweb/self-test/authorization', auth: 'token' },
  {
    id: 'passkey-sign-in-options',
    method: 'POST',
    path: '/indieweb/login/passkey/options',
    auth: 'csrf',
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  {
    id: 'passkey-sign-in',
    method: 'POST',
    path: '/indieweb/login/passkey',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['return_to', '/indieweb/'],
        ['challenge_id', 'abc'],
        ['response', '{"id":"x","rawId":"x","type":"public-key","response":{}}'],
      ],
    },
  },
  { id: 'admin-passkeys', method: 'GET', path: '/indieweb/admin/passkeys/', auth: 'session' },
  {
    id: 'admin-passkeys-options',
    method: 'POST',
    path: '/indieweb/admin/passkeys/options',
    auth: 'csrf',
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  {
    id: 'admin-passkeys-add',
    method: 'POST',
    path: '/indieweb/admin/passkeys/',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['name', 'Laptop'],
        ['challenge_id', 'abc'],
        ['response', '{}'],
      ],
    },
  },
  {
    id: 'admin-passkeys-remove',
    method: 'POST',
    path: '/indieweb/admin/passkeys/remove',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['id', 'nothere'],
      ],
    },
  },
  {
    id: 'admin-passwordless',
    method: 'POST',
    path: '/indieweb/admin/passkeys/passwordless',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['passwordless', 'on'],
      ],
    },
  },
  { id: 'admin-write-page', method: 'GET', path: '/indieweb/admin/write/', auth: 'session', query: [['type', 'photo']] },
  {
    id: 'admin-write',
    method: 'POST',
    path: '/indieweb/admin/write/',
    auth: 'csrf',
    body: {
      type: 'multipart',
      parts: [
        { name: '_csrf', data: '{{CSRF}}' },
        { name: 'type', data: 'note' },
        { name: 'content', data: 'hello' },
        { name: 'category-new', data: 'a, b' },
        { name: 'intent', data: 'publish' },
      ],
    },
  },
  {
    id: 'admin-write-cite',
    method: 'POST',
    path: '/indieweb/admin/write/cite',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['url', 'https://source.invalid/post'],
      ],
    },
  },
  {
    id: 'admin-posts',
    method: 'GET',
    path: '/indieweb/admin/posts/',
    auth: 'session',
    query: [
      ['filter', 'hello'],
      ['page', '1'],
    ],
  },
  { id: 'admin-posts-edit-page', method: 'GET', path: '/indieweb/admin/posts/edit', auth: 'session', query: [['url', '{{ENTRY}}']] },
  {
    id: 'admin-posts-edit',
    method: 'POST',
    path: '/indieweb/admin/posts/edit',
    auth: 'csrf',
    body: {
      type: 'multipart',
      parts: [
        { name: '_csrf', data: '{{CSRF}}' },
        { name: 'type', data: 'note' },
        { name: 'url', data: '{{ENTRY}}' },
        { name: 'original', data: '{}' },
        { name: 'content', data: 'edited' },
        { name: 'intent', data: 'publish' },
      ],
    },
  },
  {
    id: 'admin-posts-delete',
    method: 'POST',
    path: '/indieweb/admin/posts/delete',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['url', '{{BASE}}/nothere/2026/01/x/'],
      ],
    },
  },
  {
    id: 'admin-posts-undelete',
    method: 'POST',
    path: '/indieweb/admin/posts/undelete',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['url', '{{BASE}}/nothere/2026/01/x/'],
      ],
    },
  },
  {
    id: 'admin-media-upload',
    method: 'POST',
    path: '/indieweb/admin/media/',
    auth: 'csrf',
    body: { type: 'multipart', parts: [{ name: '_csrf', data: '{{CSRF}}' }, png] },
  },
  { id: 'admin-setup', method: 'GET', path: '/indieweb/admin/setup/', auth: 'session' },
  {
    id: 'admin-setup-run',
    method: 'POST',
    path: '/indieweb/admin/setup/',
    auth: 'csrf',
    body: { type: 'form', fields: [['_csrf', '{{CSRF}}']] },
  },
  { id: 'admin-webmention-settings', method: 'GET', path: '/indieweb/admin/webmention-settings/', auth: 'session' },
  {
    id: 'admin-webmention-rule',
    method: 'POST',
    path: '/indieweb/admin/webmention-settings/add-rule',
    auth: 'csrf',
    body: {
      type: 'form',
      fields: [
        ['_csrf', '{{CSRF}}'],
        ['value', 'spam.example'],
        ['action', 'block'],
      ],
    },
  },
  { id: 'admin-webmentions-sent', method: 'GET', path: '/indieweb/admin/webmentions/sent/', auth: 'session' },
  { id: 'stylesheet', method: 'GET', path: '/indieweb/assets/ui-0000.css', auth: 'none' },
  { id: 'unknown', method: 'GET', path: '/indieweb/nothing-here', auth: 'none' },
];

export const ROUTE_BY_ID = new Map(ROUTES.map((route) => [route.id, route]));

/** Field names of the valid requests, for generators that mix hostile and plausible names. */
export const KNOWN_NAMES = [
  ...new Set(ROUTES.flatMap((route) => [...(route.query ?? []), ...(route.body?.fields ?? [])].map(([name]) => name))),
];
