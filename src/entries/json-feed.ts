/**
 * A feed as JSON Feed 1.1. `JSON.stringify` writes any string as valid JSON
 * (lone surrogates as `\u` escapes), so every value reads back as stored.
 * `author` (1.0) is kept beside `authors` (1.1) for older readers.
 * @see https://www.jsonfeed.org/version/1.1/
 * @module
 */
import type { EntryRow } from './entry-source.js';
import { feedDocument, type FeedAuthor, type FeedDocument } from './feeds.js';
import type { OwnerView } from './templates.js';

function author(value: FeedAuthor): Record<string, string> {
  return { name: value.name, url: value.url, ...(value.avatar === null ? {} : { avatar: value.avatar }) };
}

export function renderJsonFeed(feed: FeedDocument): string {
  const by = author(feed.author);
  const document = {
    version: 'https://jsonfeed.org/version/1.1',
    title: feed.title,
    home_page_url: feed.homeUrl,
    feed_url: feed.jsonFeedUrl,
    language: feed.language,
    author: by,
    authors: [by],
    items: feed.items.map((item) => ({
      id: item.url,
      url: item.url,
      title: item.title,
      content_html: item.contentHtml,
      ...(item.image === null ? {} : { image: item.image }),
      date_published: item.published,
      date_modified: item.updated,
      author: by,
      authors: [by],
      tags: item.tags,
    })),
  };
  return JSON.stringify(document, null, 2);
}

/** A user's feed.json. */
export function jsonFeed(owner: OwnerView, entries: readonly EntryRow[]): string {
  return renderJsonFeed(feedDocument(owner, entries));
}
