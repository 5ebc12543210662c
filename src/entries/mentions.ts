/**
 * The verified webmentions of an entry, under it: replies with their
 * author and content (sanitized again with the receiving policy, whatever
 * the database holds), likes and reposts as faces, bookmarks and other
 * mentions as links. Only http(s) URLs of the remote side become links or
 * images.
 * @module
 */
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { html, SafeHtml } from '../web/html.js';
import { sanitizeContent } from '../webmention/parse.js';
import { readableDate, urlLabel } from './properties.js';
import { httpUrl } from './safe-url.js';

export interface EntryMentions {
  readonly replies: readonly WebmentionRecord[];
  readonly likes: readonly WebmentionRecord[];
  readonly reposts: readonly WebmentionRecord[];
  /** Bookmarks and plain mentions. */
  readonly links: readonly WebmentionRecord[];
}

/** Sorts verified mentions into the groups shown under an entry, oldest first within each. */
export function groupMentions(records: readonly WebmentionRecord[]): EntryMentions {
  const sorted = [...records].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const ofType = (...types: string[]) => sorted.filter((record) => types.includes(record.type ?? 'mention'));
  return { replies: ofType('reply', 'rsvp'), likes: ofType('like'), reposts: ofType('repost'), links: sorted.filter((record) => !['reply', 'rsvp', 'like', 'repost'].includes(record.type ?? 'mention')) };
}

function authorName(record: WebmentionRecord): string {
  const name = record.author.name?.trim();
  if (name !== undefined && name !== '') return name;
  const url = httpUrl(record.author.url) ?? httpUrl(record.source);
  return url === null ? 'Someone' : new URL(url).hostname;
}

/** `p-author h-card` of a mention: photo (name as alt), name linking to the author's URL. */
function renderMentionAuthor(record: WebmentionRecord): SafeHtml {
  const name = authorName(record);
  const url = httpUrl(record.author.url);
  const photo = httpUrl(record.author.photo);
  const image = photo === null ? '' : html`<img class="u-photo avatar" src="${photo}" alt="" loading="lazy">`;
  return url === null
    ? html`<span class="p-author h-card">${image}<span class="p-name">${name}</span></span>`
    : html`<a class="p-author h-card" href="${url}">${image}<span class="p-name">${name}</span></a>`;
}

function renderReply(record: WebmentionRecord): SafeHtml {
  const source = httpUrl(record.source);
  const content = record.contentHtml !== null && record.contentHtml !== '' ? html`<div class="e-content">${new SafeHtml(sanitizeContent(record.contentHtml))}</div>` : record.contentText !== null ? html`<p class="p-content">${record.contentText}</p>` : '';
  const when = record.published ?? record.verifiedAt ?? record.createdAt;
  return html`<li class="p-comment h-cite reply">
<p class="reply-head">${renderMentionAuthor(record)}${source === null ? '' : html` <a class="u-url" href="${source}" rel="nofollow ugc"><time class="dt-published" datetime="${when}">${readableDate(when)}</time></a>`}</p>
${content}
</li>`;
}

/** A face: the author's photo (or initial) linking to them, their name as the alt text. */
function renderFace(record: WebmentionRecord, property: 'like' | 'repost'): SafeHtml {
  const name = authorName(record);
  const url = httpUrl(record.author.url) ?? httpUrl(record.source);
  const photo = httpUrl(record.author.photo);
  const face = photo === null ? html`<span class="initial" aria-hidden="true">${[...name][0]?.toUpperCase() ?? '?'}</span><span class="visually-hidden p-name">${name}</span>` : html`<img class="u-photo avatar" src="${photo}" alt="${name}" loading="lazy">`;
  const source = httpUrl(record.source);
  return html`<li class="p-${property} h-cite face">${url === null ? html`<span class="p-author h-card">${face}</span>` : html`<a class="p-author h-card u-url" href="${url}" title="${name}" rel="nofollow ugc">${face}</a>`}${source === null || source === url ? '' : html`<data class="u-url" value="${source}"></data>`}</li>`;
}

function renderLink(record: WebmentionRecord): SafeHtml {
  const source = httpUrl(record.source);
  const verb = record.type === 'bookmark' ? 'bookmarked this' : 'mentioned this';
  return html`<li class="p-mention h-cite">${renderMentionAuthor(record)} ${verb}${source === null ? '' : html` at <a class="u-url" href="${source}" rel="nofollow ugc">${urlLabel(source)}</a>`}</li>`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The responses section; empty markup when there are none. */
export function renderMentions(mentions: EntryMentions): SafeHtml {
  const { replies, likes, reposts, links } = mentions;
  if (replies.length + likes.length + reposts.length + links.length === 0) return html``;
  return html`<section class="responses" aria-labelledby="responses-heading">
<h2 id="responses-heading">Responses</h2>
${likes.length === 0 ? '' : html`<h3>${count(likes.length, 'like', 'likes')}</h3><ul class="faces">${likes.map((record) => renderFace(record, 'like'))}</ul>`}
${reposts.length === 0 ? '' : html`<h3>${count(reposts.length, 'repost', 'reposts')}</h3><ul class="faces">${reposts.map((record) => renderFace(record, 'repost'))}</ul>`}
${replies.length === 0 ? '' : html`<h3>${count(replies.length, 'reply', 'replies')}</h3><ol class="replies">${replies.map(renderReply)}</ol>`}
${links.length === 0 ? '' : html`<h3>${count(links.length, 'mention', 'mentions')}</h3><ul class="mention-links">${links.map(renderLink)}</ul>`}
</section>`;
}
