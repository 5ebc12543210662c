/**
 * A user's home page: the h-card, then an h-feed of a page of published
 * entries (newest first) with links to the newer and older pages.
 * @module
 */
import { html, type SafeHtml } from '../web/html.js';
import type { EntryRow } from './entry-source.js';
import { renderAuthor, type Owner } from './h-card.js';
import { renderFeedItem } from './h-entry.js';
import type { BucketPhotos } from './photo-markup.js';

export function renderFeed(owner: Owner, entries: readonly EntryRow[], total: number, bucket: BucketPhotos | null = null): SafeHtml {
  const name = owner.profile.name ?? owner.name;
  const list =
    entries.length === 0
      ? html`<p>Nothing published yet.</p>`
      : html`<p class="count">${total} ${total === 1 ? 'post' : 'posts'}</p><ol>${entries.map((row) => renderFeedItem(row, bucket))}</ol>`;
  return html`<section class="h-feed" aria-labelledby="feed-heading">
<h2 id="feed-heading" class="p-name">Posts by ${name}</h2>
<p class="visually-hidden">${renderAuthor(owner)}</p>
${list}
</section>`;
}

export function renderPager(newerUrl: string | null, olderUrl: string | null): SafeHtml {
  if (newerUrl === null && olderUrl === null) return html``;
  // an empty first item keeps "Older posts" on the right when there is no newer page
  const newer = newerUrl === null ? html`<span></span>` : html`<a rel="prev" href="${newerUrl}">← Newer posts</a>`;
  const older = olderUrl === null ? '' : html`<a rel="next" href="${olderUrl}">Older posts →</a>`;
  return html`<nav class="pager" aria-label="Pages">${newer}${older}</nav>`;
}

/** The tombstone: what was here, and that it is gone. */
export function renderTombstone(url: string, deletedAt: string, owner: Owner): SafeHtml {
  const what = html`<p>The post that was at <code>${url}</code> has been deleted by its author.</p>`;
  const others = html`<p><a href="${owner.homeUrl}">See the other posts of ${owner.profile.name ?? owner.name}</a></p>`;
  const when = html`<p class="visually-hidden">Deleted at <time datetime="${deletedAt}">${deletedAt}</time></p>`;
  return html`<div class="tombstone"><h1>This post was deleted</h1>${what}${others}${when}</div>`;
}
