import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import { REACTION_MEMBERS_SHOWN, type Reaction } from './schemas.js';

interface ReactorRow {
  message_id: number | string;
  emoji: string;
  member_handle: string;
  total: number | string;
}

/**
 * The reactions of a set of messages, for their views: each emoji with its
 * count and its first reactors. The database numbers each emoji's reactors and
 * hands back only the first ones, so a popular message costs a page no more
 * than `REACTION_MEMBERS_SHOWN` rows per emoji. Messages without reactions are
 * absent from the map. Order comes from the reaction ids, never from comparing
 * emoji as text, whose collation differs between SQLite and PostgreSQL.
 */
export async function loadReactions(db: Kysely<DatabaseSchema>, messageIds: readonly number[]): Promise<Map<number, Reaction[]>> {
  const byMessage = new Map<number, Reaction[]>();
  if (messageIds.length === 0) return byMessage;
  const { rows } = await sql<ReactorRow>`
    select message_id, emoji, member_handle, total from (
      select message_id, emoji, member_handle,
        row_number() over (partition by message_id, emoji order by id) as n,
        count(*) over (partition by message_id, emoji) as total,
        min(id) over (partition by message_id, emoji) as first_id
      from message_reactions
      where message_id in (${sql.join([...new Set(messageIds)])})
    ) ranked
    where n <= ${REACTION_MEMBERS_SHOWN}
    order by message_id, first_id, n`.execute(db);
  for (const row of rows) {
    const id = Number(row.message_id);
    let reactions = byMessage.get(id);
    if (!reactions) byMessage.set(id, (reactions = []));
    const last = reactions.at(-1);
    if (last?.emoji === row.emoji) last.members.push(row.member_handle);
    else reactions.push({ emoji: row.emoji, count: Number(row.total), members: [row.member_handle] });
  }
  return byMessage;
}
