/**
 * The built-in stylesheet of the entry pages, served from its own route
 * (the pages' CSP allows no inline style): readable measure, system fonts,
 * light and dark through `prefers-color-scheme`, one column on phones.
 * @module
 */
export const ENTRY_STYLESHEET = `
:root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1d1d1f;--muted:#5a5a60;--line:#d9d9de;--accent:#0b57d0;--card:#f3f3f5}
@media (prefers-color-scheme:dark){:root{--bg:#121214;--fg:#ececef;--muted:#a8a8b0;--line:#34343a;--accent:#8ab4f8;--card:#1c1c20}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.6;
-webkit-text-size-adjust:100%}
body{margin:0}
a{color:var(--accent);text-underline-offset:.15em}
a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:1}
.site{max-width:42rem;margin:0 auto;padding:1rem 1.25rem 3rem}
.site-header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;
border-bottom:1px solid var(--line);padding:.5rem 0 .75rem;margin-bottom:1.5rem}
.site-header a{font-weight:600;text-decoration:none}
.site-header nav{display:flex;gap:1rem;font-size:.95rem}
.site-footer{margin-top:3rem;border-top:1px solid var(--line);padding-top:1rem;color:var(--muted);font-size:.9rem}
h1{font-size:clamp(1.6rem,4vw,2.2rem);line-height:1.2;margin:.25rem 0 .5rem}
h2{font-size:1.3rem;margin:2rem 0 .75rem}
h3{font-size:1rem;margin:1.25rem 0 .5rem;color:var(--muted)}
img,video{max-width:100%;height:auto}
audio{width:100%}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.byline{margin:0 0 1rem;color:var(--muted)}
.author{display:inline-flex;align-items:center;gap:.5rem}
.avatar{width:2rem;height:2rem;border-radius:50%;object-fit:cover;vertical-align:middle}
.avatar-large{width:6rem;height:6rem;border-radius:50%;object-fit:cover}
.contexts{border-left:3px solid var(--line);padding-left:.75rem;color:var(--muted)}
.context{margin:.25rem 0}
.entry-content{font-size:1.08rem;overflow-wrap:anywhere}
.entry-content .p-content{white-space:pre-wrap}
.entry-content blockquote{margin:1rem 0;padding-left:1rem;border-left:3px solid var(--line)}
.entry-content pre{overflow-x:auto;background:var(--card);padding:.75rem;border-radius:.4rem}
.media{display:grid;gap:.5rem;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));margin:1rem 0}
.media figure{margin:0}
.media video{width:100%;border-radius:.4rem}
.media img{border-radius:.4rem}
.entry-meta ul{list-style:none;padding:0;margin:1.25rem 0 0;display:flex;flex-direction:column;gap:.25rem;color:var(--muted);
font-size:.95rem}
.entry-meta .label{font-weight:600}
.categories .p-category,.categories .u-category{display:inline-block;background:var(--card);border-radius:1rem;padding:0 .6rem;
margin:0 .25rem .25rem 0}
.categories .p-category::before{content:"#"}
.entry-meta .h-card,.entry-meta .h-adr,.entry-meta .h-geo,.contexts .h-cite{display:inline}
.contexts .h-cite>*,.entry-meta .h-card>*{margin-right:.35rem}
.responses{margin-top:2.5rem;border-top:1px solid var(--line)}
.faces{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.face .avatar,.face .initial{width:2.5rem;height:2.5rem}
.initial{display:inline-flex;align-items:center;justify-content:center;border-radius:50%;background:var(--card);color:var(--fg);
font-weight:700}
.replies{list-style:none;padding:0}
.reply{border-bottom:1px solid var(--line);padding:.75rem 0}
.reply-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:0 0 .25rem;font-size:.95rem}
.reply-head .h-card{display:inline-flex;align-items:center;gap:.4rem;font-weight:600}
.reply-head time{color:var(--muted)}
.mention-links{padding-left:1.1rem}
.profile{display:grid;gap:.25rem;justify-items:start;margin-bottom:1rem}
.profile .p-note{margin:.25rem 0;font-size:1.05rem}
.card-links{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.h-feed>ol{list-style:none;padding:0;margin:0}
.feed-item{border-bottom:1px solid var(--line);padding:1.25rem 0}
.feed-item h2{margin:0 0 .25rem}
.pager{display:flex;justify-content:space-between;gap:1rem;margin-top:1.5rem}
.pager a{padding:.4rem .8rem;border:1px solid var(--line);border-radius:.4rem;text-decoration:none}
.tombstone{padding:2rem 0}
@media (min-width:48rem){.site{padding-top:2rem}.entry-content{font-size:1.12rem}}
@media print{.site-header nav,.pager,.responses{display:none}}
`;
