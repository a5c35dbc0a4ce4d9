import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import type { CredentialChanges } from './member-key-cache.js';

// Compiled once: this runs on every keyed request, and building it through the
// query builder would cost more than running it.
const READ_COUNT = CompiledQuery.raw('select changes from credential_changes where id = 1');

/**
 * SQLite's way of learning that members or member keys changed (migration
 * 0018): the count the database's triggers keep, read when asked. Always
 * live: there is no connection to lose.
 */
export function countedCredentialChanges(db: Kysely<DatabaseSchema>): CredentialChanges {
  return {
    live: true,
    onChange: () => undefined,
    async count() {
      const { rows } = await db.executeQuery<{ changes: number }>(READ_COUNT);
      return Number(rows[0]?.changes ?? 0);
    },
  };
}
