import { sql, type Kysely } from 'kysely';
import type { EventTail } from '../events/tail.js';
import { invalid } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';

/** How far a member has read their inbox: a cursor of the inbox feed, 0 until they first mark it. */
export interface InboxReadState {
  cursor: number;
  updated_ts: string | null;
}

export async function readState(db: Kysely<DatabaseSchema>, member: string): Promise<InboxReadState> {
  const row = await db.selectFrom('inbox_reads').select(['cursor', 'updated_ts']).where('member_handle', '=', member).executeTakeFirst();
  return row ? { cursor: Number(row.cursor), updated_ts: row.updated_ts } : { cursor: 0, updated_ts: null };
}

/**
 * A cursor beyond the newest event on the host was never handed out here, and
 * is refused as a feed read refuses it. Checked before the transaction opens:
 * on SQLite the head is read on the one connection a transaction would hold.
 */
export async function requireHandedOut(tail: EventTail, cursor: number): Promise<void> {
  if (cursor > tail.head && cursor > (await tail.databaseHead())) throw invalid('cursor_beyond_head', `cursor ${cursor} is beyond the newest event on this host`);
}

/**
 * Marks the inbox read up to `cursor`. The mark only moves forward: two
 * devices marking at once, or an old tab catching up, never make read items
 * unread again.
 */
export async function markRead(tx: Tx, member: string, cursor: number): Promise<InboxReadState> {
  const ts = tx.now.toISOString();
  await tx.db
    .insertInto('inbox_reads')
    .values({ member_handle: member, cursor, updated_ts: ts })
    .onConflict((oc) =>
      oc.column('member_handle').doUpdateSet({
        cursor: sql<number>`case when excluded.cursor > inbox_reads.cursor then excluded.cursor else inbox_reads.cursor end`,
        updated_ts: sql<string>`case when excluded.cursor > inbox_reads.cursor then excluded.updated_ts else inbox_reads.updated_ts end`,
      }),
    )
    .execute();
  return readState(tx.db, member);
}
