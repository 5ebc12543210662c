/**
 * A feed as Atom 1.0 (RFC 4287). Every value is escaped for XML where it is
 * written (`xml-text.ts`), so a `<`, `&`, quote or control character in a
 * title, category, name or URL leaves the document well-formed and reads
 * back as it was stored. Titles and categories are plain text (Atom's
 * default); content is HTML (`type="html"`) in CDATA sections that no `]]>` can end early.
 * @see https://www.rfc-editor.org/rfc/rfc4287
 * @module
 */
import type { EntryRow } from './entry-source.js';
import { feedDocument, type FeedAuthor, type FeedDocument, type FeedItem } from './feeds.js';
import type { OwnerView } from './templates.js';
import { xmlAttribute as attr, xmlCdata as cdata, xmlText as text } from './xml-text.js';

function author(value: FeedAuthor): string {
  return `<author><name>${text(value.name)}</name><uri>${text(value.url)}</uri></author>`;
}

function entry(item: FeedItem, by: FeedAuthor): string {
  return [
    '  <entry>',
    `    <id>${text(item.url)}</id>`,
    `    <title>${text(item.title)}</title>`,
    `    <link href="${attr(item.url)}"/>`,
    `    <updated>${text(item.updated)}</updated>`,
    `    <published>${text(item.published)}</published>`,
    `    ${author(by)}`,
    ...item.tags.map((tag) => `    <category term="${attr(tag)}" label="${attr(tag)}"/>`),
    `    <content type="html">${cdata(item.contentHtml)}</content>`,
    '  </entry>',
  ].join('\n');
}

export function renderAtom(feed: FeedDocument): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${attr(feed.language)}">`,
    `  <id>${text(feed.id)}</id>`,
    `  <title>${text(feed.title)}</title>`,
    `  <updated>${text(feed.updated)}</updated>`,
    '  <generator>indiestack</generator>',
    `  ${author(feed.author)}`,
    `  <link rel="alternate" href="${attr(feed.homeUrl)}"/>`,
    `  <link rel="self" href="${attr(feed.atomUrl)}"/>`,
    ...feed.items.map((item) => entry(item, feed.author)),
    '</feed>',
    '',
  ].join('\n');
}

/** A user's feed.atom. */
export function atomFeed(owner: OwnerView, entries: readonly EntryRow[]): string {
  return renderAtom(feedDocument(owner, entries));
}
