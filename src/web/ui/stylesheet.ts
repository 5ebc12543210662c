/**
 * The one stylesheet of our pages (sign-in, consent, admin, profile, status
 * pages): system fonts, light and dark through `prefers-color-scheme`, a
 * visible focus ring, colours that meet WCAG AA on their backgrounds, one
 * column on phones and the width of a desktop screen used by side-by-side
 * columns and grids. Served from its own route under a URL that carries a
 * hash of its text, so browsers keep it for a year and a new version is a
 * new URL; the pages' CSP allows no inline style at all.
 * @module
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sendStaticAsset, staticAsset } from '../static-asset.js';

// Colours, contrast measured in both schemes (WCAG AA asks 4.5:1 for text, 3:1 for field borders): --fg on
// --bg/--surface/--code-bg ≥ 13.8:1; --muted ≥ 6:1; --accent (links) ≥ 5.5:1, also on --accent-soft; --accent-fg on
// --accent ≥ 6.3:1; --danger/--ok/--warn on their own backgrounds ≥ 6.2:1.
export const UI_STYLESHEET = `
:root{color-scheme:light dark;
--bg:#f4f5f7;--surface:#fff;--fg:#1b1d21;--muted:#555a64;--line:#d3d6dc;--accent:#0b57d0;--accent-fg:#fff;--accent-soft:#e8f0fe;
--danger:#a8231b;--danger-bg:#fdeceb;--ok:#14632b;--ok-bg:#e6f4ea;--warn:#7a4a00;--warn-bg:#fff3dc;--code-bg:#eef0f3;
--radius:.6rem;--shadow:0 1px 2px rgba(0,0,0,.06),0 1px 8px rgba(0,0,0,.04)}
@media (prefers-color-scheme:dark){:root{
--bg:#121316;--surface:#1c1d22;--fg:#e8e9ec;--muted:#a9aeb8;--line:#3a3d46;--accent:#8ab4f8;--accent-fg:#0b1d3a;--accent-soft:#1f2a3d;
--danger:#ffb4ab;--danger-bg:#3a1714;--ok:#93d7a4;--ok-bg:#12291a;--warn:#ffcf85;--warn-bg:#33260e;--code-bg:#26282e;
--shadow:none}}
*,*::before,*::after{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",sans-serif;font-size:100%;
line-height:1.5;-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;overflow-wrap:break-word}
a{color:var(--accent);text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:.2rem}
.skip{position:absolute;left:-9999px;top:.5rem;z-index:10;background:var(--surface);color:var(--accent);padding:.5rem 1rem;
border-radius:var(--radius)}
.skip:focus{left:.5rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
h1{font-size:clamp(1.5rem,1.2rem + 1.2vw,2rem);line-height:1.2;margin:0 0 1rem}
h2{font-size:1.25rem;line-height:1.3;margin:2rem 0 .75rem}
h3{font-size:1.05rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
code,pre,.mono,#field-json{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--code-bg);padding:.05rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
pre{background:var(--code-bg);padding:.75rem 1rem;border-radius:var(--radius);overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{background:none;padding:0}
img,video{max-width:100%;height:auto}
audio{max-width:100%}
time{white-space:nowrap}
/* the site bar: the name, the pages, signing out */
.site-bar{background:var(--surface);border-bottom:1px solid var(--line)}
.site-bar nav{max-width:76rem;margin:0 auto;padding:.6rem 1.25rem;display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .5rem}
.site-bar nav>strong{margin-right:.75rem;font-size:1.05rem;letter-spacing:.01em}
.site-bar nav a{padding:.35rem .6rem;border-radius:.4rem;text-decoration:none;color:var(--fg)}
.site-bar nav a:hover{background:var(--accent-soft)}
.site-bar nav a[aria-current=page]{background:var(--accent-soft);color:var(--accent);font-weight:600}
.site-bar nav form{margin-left:auto}
@media (max-width:44rem){.site-bar nav{padding:.5rem .75rem;gap:.15rem .25rem}.site-bar nav>strong{margin-right:.25rem}
.site-bar nav a{padding:.3rem .45rem}}
main{max-width:76rem;margin:0 auto;padding:1.5rem 1.25rem 4rem}
main.narrow{max-width:34rem}
main.medium{max-width:46rem}
/* panels and columns: one column on phones, side by side on a desktop */
.panel,.client,.mention,.media-item,section.card{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);
padding:1rem 1.25rem;box-shadow:var(--shadow)}
.panel>h2:first-child,.client>h2:first-child,section.card>h2:first-child{margin-top:0}
.columns{display:grid;gap:1.25rem;align-items:start;margin-top:1rem}
.columns>*{min-width:0}
.stack{display:grid;gap:1rem}
@media (min-width:60rem){.columns{grid-template-columns:repeat(2,minmax(0,1fr))}
.columns.wide-first{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}}
.lead{color:var(--muted);max-width:46rem}
.muted{color:var(--muted)}
/* forms */
form{margin:0}
fieldset{border:1px solid var(--line);border-radius:var(--radius);padding:.25rem 1rem 1rem;margin:1rem 0;max-width:42rem}
legend{font-weight:600;padding:0 .35rem}
input[type=checkbox],input[type=radio]{width:1.1rem;height:1.1rem;accent-color:var(--accent);vertical-align:-.15rem;margin:0 .4rem 0 0}
label:has(>input[type=checkbox]),label:has(>input[type=radio]){display:flex;align-items:center;font-weight:500}
label{display:block;margin:.9rem 0 .3rem;font-weight:600}
input[type=text],input[type=password],input[type=url],input[type=email],input[type=file],input:not([type]),textarea,select{
width:100%;max-width:40rem;font:inherit;color:var(--fg);background:var(--surface);
border:1px solid var(--muted);border-radius:.4rem;padding:.55rem .7rem}
input[type=file]{padding:.45rem}
textarea{min-height:5rem;resize:vertical}
textarea[readonly]{field-sizing:content}
input[readonly]{background:var(--code-bg)}
input[aria-invalid=true],textarea[aria-invalid=true]{border-color:var(--danger);border-width:2px}
.hint{display:block;color:var(--muted);font-size:.9rem;margin:.25rem 0 0}
button{font:inherit;font-weight:600;cursor:pointer;border-radius:.4rem;padding:.5rem 1rem;margin:.9rem .5rem 0 0;
border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg)}
button:hover{filter:brightness(1.08)}
form.inline,li form,td form{display:inline}
li form button,td form button,.actions button,.site-bar button,form.inline button{margin:.25rem .35rem .25rem 0;background:var(--surface);
color:var(--accent);border-color:var(--line);font-weight:500;padding:.35rem .75rem}
.site-bar button{margin:0}
button.secondary,button[value=deny]{background:var(--surface);color:var(--accent);border-color:var(--line)}
button.danger,button[value=delete]{background:var(--surface);color:var(--danger);border-color:var(--danger)}
.filters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:end}
.filters>div{flex:1 1 12rem;max-width:24rem}
.filters label{margin-top:.5rem}
.filters select,.filters input{height:2.75rem}
.filters button{margin-bottom:0;height:2.75rem}
/* messages */
.error,.notice,.warning-box{border-radius:var(--radius);padding:.6rem .9rem;margin:.75rem 0}
.error{background:var(--danger-bg);color:var(--danger);border-left:4px solid var(--danger)}
.error ul{margin:.25rem 0;padding-left:1.25rem}
span.error{display:block;margin:.35rem 0 0;padding:.3rem .6rem;max-width:40rem}
.error[hidden]{display:none}
.notice{background:var(--ok-bg);color:var(--ok);border-left:4px solid var(--ok)}
.warning{color:var(--warn);background:var(--warn-bg);border-radius:var(--radius);padding:.5rem .75rem;font-weight:600}
.held{color:var(--warn);font-weight:600}
.via{display:inline-block;padding:0 .4em;border:1px solid currentColor;border-radius:.3em;font-size:.85em;white-space:nowrap}
.rejected,.failure{color:var(--danger)}
/* lists of things */
dl{margin:.5rem 0}
dt{font-weight:600;margin-top:.6rem}
dd{margin:0 0 0 0;overflow-wrap:anywhere}
ul.mentions,ul.media,ul.plain{list-style:none;padding:0;margin:1rem 0;display:grid;gap:.75rem}
ul.media{grid-template-columns:repeat(auto-fill,minmax(min(100%,16rem),1fr))}
.media-item img,.media-item video{display:block;max-height:12rem;width:auto;margin:0 0 .5rem;border-radius:.4rem;background:var(--code-bg)}
.media-item p{margin:.25rem 0;overflow-wrap:anywhere}
.media-item label{font-weight:500;font-size:.9rem}
.mention>p:first-child{margin-top:0}
.mention blockquote{margin:.5rem 0;padding:.25rem .9rem;border-left:3px solid var(--line);color:var(--fg)}
.paging{display:flex;gap:1rem;align-items:center}
.client{margin:1rem 0}
.client h2{margin:0 0 .25rem;display:flex;align-items:center;gap:.6rem}
.client h2 img{width:2rem;height:2rem;border-radius:.4rem;object-fit:cover}
.client .client-id{margin:0 0 .75rem;color:var(--muted)}
.client>form button{background:var(--surface);color:var(--danger);border-color:var(--danger)}
/* tables: rows become labelled cards on phones */
table{border-collapse:collapse;width:100%;font-size:.95rem;margin:.5rem 0}
th,td{border-bottom:1px solid var(--line);padding:.5rem .6rem;text-align:left;vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:.85rem;text-transform:uppercase;letter-spacing:.03em}
@media (max-width:44rem){
table,tbody,tr,td{display:block;width:100%}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
tr{border:1px solid var(--line);border-radius:var(--radius);padding:.5rem .75rem;margin:.5rem 0;background:var(--surface)}
td{border:0;padding:.2rem 0;overflow-wrap:anywhere}
td[data-label]::before{content:attr(data-label);display:inline-block;min-width:6.5rem;color:var(--muted);font-weight:600;font-size:.85rem}
caption{display:block;text-align:left}
}
/* sign-in and consent */
.auth{max-width:58rem}
.auth .columns{margin-top:1rem}
.auth .panel h2{margin-top:0}
.consent{max-width:40rem}
.app-card{display:flex;gap:1rem;align-items:center;margin-bottom:1rem}
.app-card img,.app-card .initial{width:4rem;height:4rem;border-radius:.9rem;flex:none;object-fit:cover}
.initial{display:inline-flex;align-items:center;justify-content:center;background:var(--accent-soft);color:var(--accent);font-weight:700;
font-size:1.6rem}
.app-card h1{margin:0}
.app-card p{margin:.2rem 0 0;color:var(--muted)}
.redirect{background:var(--accent-soft);border-radius:var(--radius);padding:.75rem 1rem;margin:1rem 0}
.redirect .host{display:block;font-size:1.35rem;font-weight:700;overflow-wrap:anywhere}
.redirect code{background:none;padding:0}
ul.scopes{list-style:none;padding:0;margin:.5rem 0;display:grid;gap:.4rem}
ul.scopes li{padding:.5rem .75rem;background:var(--code-bg);border-radius:.4rem}
.decision{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:1rem}
.decision button{margin:0;min-width:8rem}
details{margin:1rem 0}
summary{cursor:pointer;color:var(--accent)}
/* the public profile */
.profile-page{max-width:44rem}
.profile-card{display:grid;gap:1.25rem;align-items:start;background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);
padding:1.5rem;box-shadow:var(--shadow)}
@media (min-width:36rem){.profile-card:has(>.photos){grid-template-columns:auto 1fr}}
.profile-card .u-photo{width:8rem;height:8rem;border-radius:50%;object-fit:cover}
.profile-card h1{margin:0 0 .25rem}
.profile-card .p-note{margin:.5rem 0 1rem;font-size:1.1rem;white-space:pre-line}
.profile-card ul{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem}
@media print{.site-bar,.skip{display:none}}
`;

/** A hash of the text: part of the URL, so a changed stylesheet is a new URL. */
export const UI_STYLESHEET_VERSION = createHash('sha256').update(UI_STYLESHEET).digest('hex').slice(0, 16);

/** Where every page links its stylesheet (full path, the plugin's `/indieweb` prefix included). */
export const UI_STYLESHEET_PATH = `/indieweb/assets/ui-${UI_STYLESHEET_VERSION}.css`;

/**
 * Registers the stylesheet route (in the plugin's `/indieweb` scope). Its own
 * version is cached for a year; another version (a page an instance of
 * another release rendered) gets this one, revalidated each time (static-asset.ts).
 */
export function stylesheetRoute(app: FastifyInstance): void {
  const asset = staticAsset('text/css; charset=utf-8', UI_STYLESHEET);
  app.get<{ Params: { version: string } }>('/assets/ui-:version.css', async (request, reply) =>
    sendStaticAsset(request, reply, asset, request.params.version === UI_STYLESHEET_VERSION),
  );
}
