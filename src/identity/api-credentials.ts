import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { notFound } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { ApiCredentialSchema } from './schemas.js';
import type { MemberKeyTable } from './tables.js';

/** What a client activation calls itself when it gives no name (protocol: Client activation). */
export const GENERIC_CLIENT_NAME = 'API client';

/** protocol: API credentials. One API credential as the credentials page shows it (never the key), as its schema declares it. */
export type ApiCredentialView = Static<typeof ApiCredentialSchema>;

function toView(row: MemberKeyTable): ApiCredentialView {
  return {
    id: row.id,
    client_name: row.client_name ?? GENERIC_CLIENT_NAME,
    key_prefix: row.key_prefix,
    created_ts: row.created_ts,
    last_used_ts: row.last_used_ts,
    revoked_ts: row.revoked_ts,
  };
}

/**
 * The member's credentials minted by client activations, newest first, revoked
 * ones included so the owner can see what was turned off and when.
 * (Agent registration keys belong to the agent member, not to its operator.)
 */
export async function listApiCredentials(db: Kysely<DatabaseSchema>, handle: string): Promise<ApiCredentialView[]> {
  const rows = await db
    .selectFrom('member_keys')
    .selectAll()
    .where('member_handle', '=', handle)
    .where('origin', '=', 'client_activation')
    .orderBy('created_ts', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toView);
}

/**
 * Revokes one of the member's own client credentials. The key is refused from
 * the next request on (credentials.ts checks `revoked_ts` every time).
 * Revoking again answers the same record and emits nothing.
 */
export async function revokeApiCredential(tx: Tx, handle: string, id: string): Promise<ApiCredentialView> {
  const find = () =>
    tx.db
      .selectFrom('member_keys')
      .selectAll()
      .where('id', '=', id)
      .where('member_handle', '=', handle)
      .where('origin', '=', 'client_activation')
      .executeTakeFirst();
  const row = await find();
  // Someone else's credential is "no such credential": its existence is not the caller's business.
  if (!row) throw notFound('credential_not_found', `no such credential: ${id}`);
  if (row.revoked_ts !== null) return toView(row);
  const result = await tx.db
    .updateTable('member_keys')
    .set({ revoked_ts: tx.now.toISOString() })
    .where('id', '=', id)
    .where('revoked_ts', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1) {
    tx.emit({
      type: 'client_credential_revoked',
      space: null,
      actor: { handle },
      subjects: [`member:${handle}`],
      payload: { id, member: handle },
    });
  }
  return toView((await find())!);
}
