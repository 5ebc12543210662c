/**
 * The public webmentions of an entry (webmention/service.ts `listPublic`: what a
 * visitor may see), under it: replies with their author and content, likes
 * and reposts as a count with faces, bookmarks and other mentions as links.
 * Bounded whatever the entry holds: at most {@link SHOWN_PER_GROUP} of each
 * group, then "and N more" with a link to the paged read API. Content is
 * rendered as stored: it was cut and sanitized once, at the door
 * (webmention/cap-mention.ts); a row stored before the caps that is longer
 * than a cap is capped here, when rendered. Only http(s) URLs of the remote
 * side become links or images.
 * @module
 */
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { html, SafeHtml } from '../web/html.js';
import { capStored } from '../webmention/cap-mention.js';
import { readableDate, urlLabel } from './properties.js';
import { httpUrl } from './safe-url.js';

/** Most replies, faces or links shown per group under an entry. */
export const SHOWN_PER_GROUP = 50;

export interface EntryMentions {
  readonly replies: readonly WebmentionRecord[];
  readonly likes: readonly WebmentionRecord[];
  readonly reposts: readonly WebmentionRecord[];
  /** Bookmarks and plain mentions. */
  readonly links: readonly WebmentionRecord[];
  /** How many of each group there are in all, which can be more than were read. */
  readonly totals: { readonly replies: number; readonly likes: number; readonly reposts: number; readonly links: number };
}

type Group = 'replies' | 'likes' | 'reposts' | 'links';

/** The group a mention type is shown in: bookmarks and plain mentions are links. */
function groupOf(type: string | null): Group {
  if (type === 'reply' || type === 'rsvp') return 'replies';
  if (type === 'like') return 'likes';
  if (type === 'repost') return 'reposts';
  return 'links';
}

/**
 * Sorts verified mentions into the groups shown under an entry, oldest first
 * within each. `counts` (public mentions by type, of the whole table) give
 * the totals; without them the totals are what was read.
 */
export function groupMentions(records: readonly WebmentionRecord[], counts?: Readonly<Record<string, number>>): EntryMentions {
  // rows from before the caps are capped when shown (cap-mention.ts)
  const sorted = records.map(capStored).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const groups: Record<Group, WebmentionRecord[]> = { replies: [], likes: [], reposts: [], links: [] };
  for (const record of sorted) groups[groupOf(record.type)].push(record);
  const counted: Record<Group, number> = { replies: 0, likes: 0, reposts: 0, links: 0 };
  for (const [type, n] of Object.entries(counts ?? {})) counted[groupOf(type)] += n;
  // never fewer than were read (a mention may arrive between the two queries)
  const total = (group: Group) => Math.max(groups[group].length, counted[group]);
  return { ...groups, totals: { replies: total('replies'), likes: total('likes'), reposts: total('reposts'), links: total('links') } };
}

function authorName(record: WebmentionRecord): string {
  const name = record.author.name?.trim();
  if (name !== undefined && name !== '') return name;
  const url = httpUrl(record.author.url) ?? httpUrl(record.source);
  return url === null ? 'Someone' : new URL(url).hostname;
}

/**
 * An author photo the page can show: https, or the page's own origin (the pages' CSP loads `'self' https:`
 * images; another http: image would show as broken), else none.
 */
function avatarUrl(url: string | null, ownOrigin: string | null): string | null {
  const safe = httpUrl(url);
  if (safe === null) return null;
  return safe.startsWith('https:') || (ownOrigin !== null && new URL(safe).origin === ownOrigin) ? safe : null;
}

/** `p-author h-card` of a mention: photo (name as alt), name linking to the author's URL. */
function renderMentionAuthor(record: WebmentionRecord, ownOrigin: string | null): SafeHtml {
  const name = authorName(record);
  const url = httpUrl(record.author.url);
  const photo = avatarUrl(record.author.photo, ownOrigin);
  const image = photo === null ? '' : html`<img class="u-photo avatar" src="${photo}" alt="" loading="lazy">`;
  return url === null
    ? html`<span class="p-author h-card">${image}<span class="p-name">${name}</span></span>`
    : html`<a class="p-author h-card" href="${url}">${image}<span class="p-name">${name}</span></a>`;
}

function renderReply(record: WebmentionRecord, ownOrigin: string | null): SafeHtml {
  const source = httpUrl(record.source);
  const content =
    record.contentHtml !== null && record.contentHtml !== ''
      ? html`<div class="e-content">${new SafeHtml(record.contentHtml)}</div>`
      : record.contentText !== null
        ? html`<p class="p-content">${record.contentText}</p>`
        : '';
  const when = record.published ?? record.verifiedAt ?? record.createdAt;
  const time = html`<time class="dt-published" datetime="${when}">${readableDate(when)}</time>`;
  const link = source === null ? '' : html` <a class="u-url" href="${source}" rel="nofollow ugc">${time}</a>`;
  return html`<li class="p-comment h-cite reply">
<p class="reply-head">${renderMentionAuthor(record, ownOrigin)}${link}</p>
${content}
</li>`;
}

/** A face: the author's photo (or initial) linking to them, their name as the alt text. */
function renderFace(record: WebmentionRecord, property: 'like' | 'repost', ownOrigin: string | null): SafeHtml {
  const name = authorName(record);
  const url = httpUrl(record.author.url) ?? httpUrl(record.source);
  const photo = avatarUrl(record.author.photo, ownOrigin);
  const initial = [...name][0]?.toUpperCase() ?? '?';
  const face =
    photo === null
      ? html`<span class="initial" aria-hidden="true">${initial}</span><span class="visually-hidden p-name">${name}</span>`
      : html`<img class="u-photo avatar" src="${photo}" alt="${name}" loading="lazy">`;
  const source = httpUrl(record.source);
  const author =
    url === null
      ? html`<span class="p-author h-card">${face}</span>`
      : html`<a class="p-author h-card u-url" href="${url}" title="${name}" rel="nofollow ugc">${face}</a>`;
  const sourceUrl = source === null || source === url ? '' : html`<data class="u-url" value="${source}"></data>`;
  return html`<li class="p-${property} h-cite face">${author}${sourceUrl}</li>`;
}

function renderLink(record: WebmentionRecord, ownOrigin: string | null): SafeHtml {
  const source = httpUrl(record.source);
  const verb = record.type === 'bookmark' ? 'bookmarked this' : 'mentioned this';
  const at = source === null ? '' : html` at <a class="u-url" href="${source}" rel="nofollow ugc">${urlLabel(source)}</a>`;
  return html`<li class="p-mention h-cite">${renderMentionAuthor(record, ownOrigin)} ${verb}${at}</li>`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first {@link SHOWN_PER_GROUP} of a group, and a line saying how many more there are. */
function bounded(
  records: readonly WebmentionRecord[],
  total: number,
  render: (record: WebmentionRecord) => SafeHtml,
  more: string | null,
): { items: SafeHtml[]; rest: SafeHtml | string } {
  const rest = total - Math.min(records.length, SHOWN_PER_GROUP);
  return {
    items: records.slice(0, SHOWN_PER_GROUP).map(render),
    rest:
      rest <= 0
        ? ''
        : more === null
          ? html`<p class="more-responses">and ${rest} more</p>`
          : html`<p class="more-responses">and ${rest} more: <a href="${more}" rel="nofollow">all responses</a></p>`,
  };
}

/**
 * The responses section; empty markup when there are none. `more` is where
 * all of them can be read page by page (the read API of the entry's URL);
 * `ownOrigin` is the page's own origin, whose images an http: site may show.
 */
export function renderMentions(mentions: EntryMentions, more: string | null = null, ownOrigin: string | null = null): SafeHtml {
  const { replies, likes, reposts, links } = mentions;
  if (replies.length + likes.length + reposts.length + links.length === 0) return html``;
  const { totals } = mentions;
  const likeFaces = bounded(likes, totals.likes, (record) => renderFace(record, 'like', ownOrigin), more);
  const repostFaces = bounded(reposts, totals.reposts, (record) => renderFace(record, 'repost', ownOrigin), more);
  const replyItems = bounded(replies, totals.replies, (record) => renderReply(record, ownOrigin), more);
  const linkItems = bounded(links, totals.links, (record) => renderLink(record, ownOrigin), more);
  const likesGroup =
    likes.length === 0
      ? ''
      : html`<h3>${count(totals.likes, 'like', 'likes')}</h3><ul class="faces">${likeFaces.items}</ul>${likeFaces.rest}`;
  const repostsGroup =
    reposts.length === 0
      ? ''
      : html`<h3>${count(totals.reposts, 'repost', 'reposts')}</h3><ul class="faces">${repostFaces.items}</ul>${repostFaces.rest}`;
  const repliesGroup =
    replies.length === 0
      ? ''
      : html`<h3>${count(totals.replies, 'reply', 'replies')}</h3><ol class="replies">${replyItems.items}</ol>${replyItems.rest}`;
  const linksGroup =
    links.length === 0
      ? ''
      : html`<h3>${count(totals.links, 'mention', 'mentions')}</h3><ul class="mention-links">${linkItems.items}</ul>${linkItems.rest}`;
  return html`<section class="responses" aria-labelledby="responses-heading">
<h2 id="responses-heading">Responses</h2>
${likesGroup}
${repostsGroup}
${repliesGroup}
${linksGroup}
</section>`;
}
