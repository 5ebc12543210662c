// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

/** Rows read and rewritten at a time. */
const BATCH = 500;

// The rule of this migration's day (src/storage/repositories/entries.ts `searchTextOf` then), copied so that later
// changes to it never change what this migration did: the q=source list item ({ type, properties } with a `url`
// property when it has none, and a `published` one, the stored date, when it has none) as JSON with object keys
// sorted at every level, lower-cased.
function stable(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

function searchText(row: { url: string; type: string; properties: string; published: string }): string | null {
  try {
    const properties = JSON.parse(row.properties) as Record<string, unknown>;
    const listed = {
      ...properties,
      ...(properties.url === undefined ? { url: [row.url] } : {}),
      ...(properties.published === undefined ? { published: [row.published] } : {}),
    };
    const item = { type: JSON.parse(row.type) as unknown, properties: listed };
    return stable(item).toLowerCase();
  } catch {
    // unreadable JSON: the list reads such an entry the slow way (null never matches the SQL filter)
    return null;
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  // issue 31: a filtered q=source list matched every one of a user's entries in JavaScript (JSON parsed, copied,
  // serialised again: ~10 req/s at 10,000 entries); the text it matches is now a column, and the list is one
  // SQL range of indieweb_entry_user_live (below) with the match in SQL
  await db.schema.alterTable('indieweb_entry').addColumn('search_text', 'text').execute();
  let after = '';
  for (;;) {
    const rows: { id: string; url: string; type: string; properties: string; published: string }[] = await db
      .selectFrom('indieweb_entry')
      .select(['id', 'url', 'type', 'properties', 'published'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows)
      await db
        .updateTable('indieweb_entry')
        .set({ search_text: searchText(row) })
        .where('id', '=', row.id)
        .execute();
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.id;
  }
  // q=source's list and count: a user's live entries newest created first, both a range of this index alone
  // (the old (user, created) index made the count read every row for deleted_at: ~40 ms at 20,000 entries)
  await db.schema
    .createIndex('indieweb_entry_user_live')
    .on('indieweb_entry')
    .columns(['user_id', 'deleted_at', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('indieweb_entry_user_created').execute();
  // (user, published) serves no query since 0013's (user, status, visibility, published) index; every insert paid for it
  await db.schema.dropIndex('indieweb_entry_user_published').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('indieweb_entry_user_published').on('indieweb_entry').columns(['user_id', 'published', 'id']).execute();
  await db.schema.createIndex('indieweb_entry_user_created').on('indieweb_entry').columns(['user_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('indieweb_entry_user_live').execute();
  await db.schema.alterTable('indieweb_entry').dropColumn('search_text').execute();
}
