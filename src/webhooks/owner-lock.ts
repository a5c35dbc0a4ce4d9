import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';

/** Serialises one owner's quota-counted creations on PostgreSQL (SQLite serialises writers already). */
export async function lockOwner(db: Kysely<DatabaseSchema>, handle: string, dialect: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('members').select('handle').where('handle', '=', handle).forUpdate().execute();
}
