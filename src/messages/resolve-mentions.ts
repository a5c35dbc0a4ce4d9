import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * The members a body mentions (protocol: Event types, `message_posted`): the
 * parser's candidates (found before the transaction, see prepareBody) (plain text only: never code, links, autolinks, URLs or
 * e-mail addresses) resolved against member identities, in first-appearance
 * order. Only active members are notified: a pending or suspended member, or an
 * unknown handle, stays text. Authors do not notify themselves.
 */
export async function resolveMentions(db: Kysely<DatabaseSchema>, found: readonly string[], author: string): Promise<string[]> {
  const candidates = found.filter((handle) => handle !== author);
  if (candidates.length === 0) return [];
  const active = new Set<string>();
  // Bounded batches keep each query far below both backends' parameter limits.
  for (let i = 0; i < candidates.length; i += 500) {
    const rows = await db
      .selectFrom('members')
      .select('handle')
      .where('handle', 'in', candidates.slice(i, i + 500))
      .where('status', '=', 'active')
      .execute();
    for (const row of rows) active.add(row.handle);
  }
  return candidates.filter((handle) => active.has(handle));
}
