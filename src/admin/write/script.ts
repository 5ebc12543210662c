/**
 * The Write area's script, served as a static file (the CSP allows no inline
 * script): everything works without it. It previews a chosen photo at once
 * (as a data: URL, which the CSP's img-src allows), keeps that preview's alt
 * text in step with the alt field, and asks the server what a pasted URL is
 * (title and author) as soon as the field is left.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { sendStaticAsset, staticAsset } from '../../web/static-asset.js';

/** Full path of the script (the plugin's `/indieweb` prefix included). */
export const WRITE_SCRIPT_PATH = '/indieweb/assets/write.js';

export const WRITE_SCRIPT = String.raw`(function () {
  'use strict';
  var form = document.querySelector('form[data-write-form]');
  if (form === null) return;

  var file = form.querySelector('[data-write-file]');
  var preview = form.querySelector('img[data-write-preview]');
  var alt = form.querySelector('[data-write-alt]');
  if (file !== null && preview !== null) {
    file.addEventListener('change', function () {
      var chosen = file.files && file.files[0];
      if (!chosen || chosen.type.indexOf('image/') !== 0) { preview.hidden = true; preview.removeAttribute('src'); return; }
      var reader = new FileReader();
      reader.onload = function () {
        preview.src = String(reader.result); preview.alt = alt === null ? '' : alt.value; preview.hidden = false;
      };
      reader.readAsDataURL(chosen);
    });
    if (alt !== null) alt.addEventListener('input', function () { preview.alt = alt.value; });
  }

  var cited = form.querySelector('[data-write-cite]');
  var box = form.querySelector('[data-write-citation]');
  var citeUrl = form.getAttribute('data-cite-url');
  if (cited !== null && box !== null && citeUrl) {
    var last = cited.value;
    var show = function (text, kind) { box.textContent = text; box.className = kind; box.hidden = false; };
    cited.addEventListener('change', function () {
      var url = cited.value.trim();
      if (url === '' || url === last) return;
      last = url;
      show('Looking at ' + url + '…', 'notice');
      var body = new URLSearchParams();
      body.set('_csrf', form.elements._csrf.value);
      body.set('url', url);
      fetch(citeUrl, { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.json(); })
        .then(function (citation) {
          if (cited.value.trim() !== url) return;
          if (!citation.ok) { show(citation.reason, 'error'); return; }
          var by = citation.author ? ' by ' + citation.author : '';
          show('You are citing ' + (citation.title || 'a page without a title') + by + '.', 'notice');
        })
        .catch(function () { show('The page could not be looked at. Preview shows it too.', 'error'); });
    });
  }
})();
`;

export function writeScriptRoute(app: FastifyInstance): void {
  const asset = staticAsset('text/javascript; charset=utf-8', WRITE_SCRIPT);
  app.get(WRITE_SCRIPT_PATH.replace(/^\/indieweb/, ''), async (request, reply) => sendStaticAsset(request, reply, asset, false));
}
