import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { requireSession } from '../identity/authority.js';
import { notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { GrantSchema, REVOCATION_REASONS } from './schemas.js';
import type { OAuthGrantTable } from './tables.js';

/** One grant as its human sees it on the credentials page, as its schema declares it. */
export type OAuthGrantView = Static<typeof GrantSchema>;

function toView(row: OAuthGrantTable): OAuthGrantView {
  return {
    id: row.id,
    client_id: row.client_id,
    client_name: row.client_name,
    acting_member: row.acting_member,
    scope: row.scope,
    spaces: row.spaces === null ? null : (JSON.parse(row.spaces) as string[]),
    created_ts: row.created_ts,
    last_used_ts: row.last_used_ts,
    revoked_ts: row.revoked_ts,
  };
}

function subjects(row: { human_handle: string; acting_member: string }): string[] {
  return [...new Set([`member:${row.human_handle}`, `member:${row.acting_member}`])];
}

export async function createGrant(
  tx: Tx,
  grant: Pick<OAuthGrantTable, 'client_id' | 'client_name' | 'human_handle' | 'acting_member' | 'scope' | 'resource'> & { spaces: string[] | null },
): Promise<OAuthGrantView> {
  const row: OAuthGrantTable = {
    id: newId('grant'),
    ...grant,
    spaces: grant.spaces === null ? null : JSON.stringify(grant.spaces),
    created_ts: tx.now.toISOString(),
    last_used_ts: null,
    revoked_ts: null,
  };
  await tx.db.insertInto('oauth_grants').values(row).execute();
  tx.emit({
    type: 'oauth_grant_created',
    space: null,
    actor: { handle: grant.human_handle },
    subjects: subjects(row),
    payload: { id: row.id, client_id: row.client_id, acting_member: row.acting_member, scope: row.scope, spaces: grant.spaces },
  });
  return toView(row);
}

/** The grants the human consented to, newest first, revoked ones included. */
export async function listGrants(db: Kysely<DatabaseSchema>, actor: Actor): Promise<OAuthGrantView[]> {
  const me = requireSession(actor);
  const rows = await db
    .selectFrom('oauth_grants')
    .selectAll()
    .where('human_handle', '=', me.member.handle)
    .orderBy('created_ts', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toView);
}

export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/**
 * Revokes a grant and every token it produced, with its event; revoking one
 * already revoked changes nothing. Every node stops the grant's tokens at once:
 * the revocation announces itself like a key revocation (migration 0020).
 */
export async function revokeGrant(tx: Tx, grantId: string, reason: RevocationReason): Promise<void> {
  const result = await tx.db.updateTable('oauth_grants').set({ revoked_ts: tx.now.toISOString() }).where('id', '=', grantId).where('revoked_ts', 'is', null).executeTakeFirst();
  await tx.db.updateTable('oauth_tokens').set({ revoked_ts: tx.now.toISOString() }).where('grant_id', '=', grantId).where('revoked_ts', 'is', null).execute();
  if (Number(result.numUpdatedRows) === 0) return;
  const row = await tx.db.selectFrom('oauth_grants').selectAll().where('id', '=', grantId).executeTakeFirstOrThrow();
  tx.emit({
    type: 'oauth_grant_revoked',
    space: null,
    actor: { handle: row.human_handle },
    subjects: subjects(row),
    payload: { id: row.id, acting_member: row.acting_member, reason },
  });
}

/** `POST /v0/oauth-grants/{id}/revoke`: the human turns one of their grants off. */
export async function revokeOwnGrant(tx: Tx, actor: Actor, id: string): Promise<OAuthGrantView> {
  const me = requireSession(actor);
  const find = () => tx.db.selectFrom('oauth_grants').selectAll().where('id', '=', id).where('human_handle', '=', me.member.handle).executeTakeFirst();
  // Someone else's grant is "no such grant": its existence is not the caller's business.
  if (!(await find())) throw notFound('grant_not_found', `no such grant: ${id}`);
  await revokeGrant(tx, id, 'revoked');
  return toView((await find())!);
}
