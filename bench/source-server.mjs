/**
 * The local source server of the webmention workloads: every
 * `GET /post/N?target=URL` answers a small h-entry page that links to URL;
 * `GET /slow/N?target=URL` one that links to URL and takes minutes to parse.
 * Usage: node bench/source-server.mjs PORT
 */
import http from 'node:http';

const [port] = process.argv.slice(2);
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/healthz') return void response.end('ok');
  const target = url.searchParams.get('target');
  if (url.pathname.startsWith('/slow/') && target !== null) {
    // a page the microformats parser reads in quadratic time: one link with 100,000 distinct rel values (issue 28 class 1)
    const rels = Array.from({ length: 100_000 }, (_, i) => `r${i}`).join(' ');
    const slow = `<!doctype html><html><body><article class="h-entry"><a class="u-in-reply-to" href="${escape(target)}">this post</a><a href="/x" rel="${rels}">x</a></article></body></html>`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(slow) });
    return void response.end(slow);
  }
  if (!url.pathname.startsWith('/post/') || target === null) {
    response.statusCode = 404;
    return void response.end();
  }
  const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Post ${escape(url.pathname)}</title></head>
<body>
<article class="h-entry">
  <a class="p-author h-card" href="http://127.0.0.1:${port}/"><img class="u-photo" src="http://127.0.0.1:${port}/me.png" alt="">Bench Author</a>
  <p class="e-content">A reply to <a class="u-in-reply-to" href="${escape(target)}">this post</a>, written for the webmention benchmark.</p>
  <time class="dt-published" datetime="2026-01-01T00:00:00Z">1 January 2026</time>
</article>
</body></html>
`;
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
  response.end(page);
});
server.keepAliveTimeout = 10_000;
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close());
server.listen(Number(port), '127.0.0.1');
