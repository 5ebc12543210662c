// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

/** Rows read and rewritten at a time. */
const BATCH = 500;

// The rule of this migration's day (src/core/visibility.ts then), copied so that later changes to it never change what this migration did:
// a property's word is its first value that is not a blank string, trimmed and lower-cased; a non-string value is a word no rule knows.
function wordOf(values: unknown): string | null | undefined {
  const first = Array.isArray(values) ? values.find((value) => typeof value !== 'string' || value.trim() !== '') : undefined;
  if (first === undefined) return undefined;
  return typeof first === 'string' ? first.trim().toLowerCase() : null;
}

function columnsOf(propertiesJson: string): { post_status: string; visibility: string } {
  let properties: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(propertiesJson);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) properties = parsed as Record<string, unknown>;
  } catch {
    // unreadable properties: nothing says the entry is public, so it is not
    return { post_status: 'draft', visibility: 'private' };
  }
  const status = wordOf(properties['post-status']);
  const visibility = wordOf(properties.visibility);
  return {
    post_status: status === undefined || status === 'published' ? 'published' : 'draft',
    visibility: visibility === undefined || visibility === 'public' ? 'public' : visibility === 'unlisted' ? 'unlisted' : 'private',
  };
}

export async function up(db: Kysely<any>): Promise<void> {
  // who may see an entry, as a column the listings filter on in SQL (issue 28, class 4): public, unlisted or private;
  // written from the properties on every write, like post_status (which is read again here with the trimmed, lower-cased rule)
  await db.schema
    .alterTable('indieweb_entry')
    .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('public'))
    .execute();
  let after = '';
  for (;;) {
    const rows: { id: string; properties: string; post_status: string }[] = await db
      .selectFrom('indieweb_entry')
      .select(['id', 'properties', 'post_status'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      const columns = columnsOf(row.properties);
      if (columns.visibility !== 'public' || columns.post_status !== row.post_status)
        await db.updateTable('indieweb_entry').set(columns).where('id', '=', row.id).execute();
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.id;
  }
  // the pages' listings: a user's listed entries by published date, one range of this index
  await db.schema
    .createIndex('indieweb_entry_user_listed')
    .on('indieweb_entry')
    .columns(['user_id', 'post_status', 'visibility', 'published', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indieweb_entry_user_listed').execute();
  await db.schema.alterTable('indieweb_entry').dropColumn('visibility').execute();
}
