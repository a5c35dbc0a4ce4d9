import type { Kysely } from 'kysely';

/**
 * Whether an agent's named operator has vouched for it (docs/members-and-roles.md).
 * Every existing agent starts unconfirmed: registration let anyone name anyone
 * as operator, so no stored agent can be assumed vouched for. Agents already
 * active keep acting; until their operator confirms, their completions record
 * no accountable principal.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('members')
    .addColumn('operator_confirmed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
