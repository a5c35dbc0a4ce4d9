import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { findMember } from '../members/service.js';
import { eventActor, requireOwnerOrHost } from '../roles/authority.js';
import { purposeRefusal } from '../shared/gateway-wire.js';
import { newId } from '../shared/ids.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { admitsMember, type CredentialConnections } from './connections.js';
import { canonicalRequest, type CanonicalRequest } from './external-request.js';
import { refuse } from './refusal.js';
import type { ApprovalBody, ApprovalView as ApprovalViewSchema } from './schemas.js';
import type { CredentialApprovalTable } from './tables.js';

export const APPROVAL_ID_PREFIX = 'capr';
export const DEFAULT_APPROVAL_SECONDS = 3600;

export type NewApproval = Static<typeof ApprovalBody>;

/**
 * What an approval answers with: what it binds, except values that may be
 * secret. Header values and the body are bound by digest and never echoed;
 * the URL is, since the Owner/Host who approves it wrote it.
 */
export type ApprovalView = Static<typeof ApprovalViewSchema>;

export function approvalView(row: CredentialApprovalTable, now: Date): ApprovalView {
  const status = row.consumed_ts !== null ? 'consumed' : row.expires_ts <= now.toISOString() ? 'expired' : 'issued';
  return {
    id: row.id,
    status,
    expires_ts: row.expires_ts,
    space: row.space,
    connection_id: row.connection_id,
    member_handle: row.member_handle,
    task_id: row.task_id === null ? null : Number(row.task_id),
    run_id: row.run_id,
    purpose: row.purpose,
    // Only the contract's methods are ever approved (the body is validated against it).
    method: row.method as ApprovalView['method'],
    url: row.url,
    header_names: JSON.parse(row.header_names) as string[],
    body_sha256: row.body_sha256,
    created_by: row.created_by,
    created_ts: row.created_ts,
  };
}

/** The gateway applies the same rule to what it is sent (src/shared/gateway-wire.ts). */
export function checkPurpose(purpose: string): void {
  const refusal = purposeRefusal(purpose);
  if (refusal !== undefined) throw refuse('invalid_request', refusal);
}

/**
 * An Owner/Host (or the steward key) approves one exact request for one
 * member. No admission is needed to approve; the member must be one the
 * connection admits, since an approval nobody could use is a mistake.
 */
/** At most this many approvals in one listing: they expire within a day, so a Space has few that matter. */
export const MAX_LISTED_APPROVALS = 200;

/**
 * A Space's approvals, newest first, for its Owners/Hosts: what they granted,
 * to whom, whether it was used. `reason` stays on this host and is not shown
 * here either; nor are header values or the body (never stored).
 */
export async function listApprovals(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, now: Date): Promise<ApprovalView[]> {
  await requireOwnerOrHost(db, actor, { space: slug });
  await getSpace(db, slug);
  const rows = await db
    .selectFrom('credential_approvals')
    .selectAll()
    .where('space', '=', slug)
    .orderBy('created_ts', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_LISTED_APPROVALS)
    .execute();
  return rows.map((row) => approvalView(row, now));
}

export async function createApproval(tx: Tx, actor: Actor, connections: CredentialConnections, slug: string, input: NewApproval): Promise<ApprovalView> {
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  await getSpace(tx.db, slug);
  checkPurpose(input.purpose);
  const connection = connections.find(slug, input.connection_id);
  if (!connection) throw refuse('invalid_request', `connection_id: Space ${slug} has no connection ${input.connection_id}`);
  const member = await findMember(tx.db, input.member_handle);
  if (!member) throw refuse('invalid_request', `member_handle: no such member: ${input.member_handle}`);
  if (!admitsMember(connection, member)) {
    throw refuse('invalid_request', `member_handle: connection ${connection.id} does not admit ${member.type} ${member.handle}`);
  }
  if (input.task_id !== undefined) await requireTaskInSpace(tx.db, slug, input.task_id);
  const request = canonicalRequest(input.request);
  const expires = new Date(tx.now.getTime() + (input.expires_in_seconds ?? DEFAULT_APPROVAL_SECONDS) * 1000);
  const row: CredentialApprovalTable = {
    id: newId(APPROVAL_ID_PREFIX),
    space: slug,
    connection_id: connection.id,
    member_handle: member.handle,
    task_id: input.task_id ?? null,
    run_id: input.run_id,
    purpose: input.purpose,
    method: request.method,
    url: request.url,
    header_names: JSON.stringify(request.headerNames),
    headers_sha256: request.headersSha256,
    body_sha256: request.bodySha256,
    reason: input.reason,
    created_by: actor.kind === 'member' ? actor.member.handle : null,
    created_ts: tx.now.toISOString(),
    expires_ts: expires.toISOString(),
    consumed_ts: null,
  };
  await tx.db.insertInto('credential_approvals').values(row).execute();
  tx.emit({
    type: 'credential_approval_created',
    space: slug,
    actor: eventActor(actor),
    subjects: [`space:${slug}`, `member:${member.handle}`, ...(row.task_id !== null ? [`task:${row.task_id}`] : [])],
    payload: {
      id: row.id,
      connection_id: row.connection_id,
      member_handle: row.member_handle,
      task_id: row.task_id,
      run_id: row.run_id,
      method: row.method,
      host: request.host,
      expires_ts: row.expires_ts,
    },
  });
  return approvalView(row, tx.now);
}

async function requireTaskInSpace(db: Kysely<DatabaseSchema>, slug: string, id: number): Promise<void> {
  const task = await db.selectFrom('tasks').select('id').where('space', '=', slug).where('id', '=', id).executeTakeFirst();
  if (!task) throw refuse('invalid_request', `task_id: Space ${slug} has no task ${id}`);
}

/** What a call must match, field for field, to use an approval. */
export interface ApprovalClaim {
  space: string;
  connection_id: string;
  member_handle: string;
  task_id: number | null;
  run_id: string;
  purpose: string;
  request: CanonicalRequest;
}

/**
 * Checks an approval against the call that presents it. Unknown, bound to
 * anything else, or expired: `approval_invalid` (403), never saying which part
 * differs, so an approval id cannot be probed for what it binds. Already used:
 * `approval_consumed` (409).
 */
export function judgeApproval(row: CredentialApprovalTable | undefined, claim: ApprovalClaim, now: Date): void {
  const matches =
    row !== undefined &&
    row.space === claim.space &&
    row.connection_id === claim.connection_id &&
    row.member_handle === claim.member_handle &&
    (row.task_id === null ? null : Number(row.task_id)) === claim.task_id &&
    row.run_id === claim.run_id &&
    row.purpose === claim.purpose &&
    row.method === claim.request.method &&
    row.url === claim.request.url &&
    row.headers_sha256 === claim.request.headersSha256 &&
    row.body_sha256 === claim.request.bodySha256;
  if (!row || !matches) throw refuse('approval_invalid', 'the approval does not exist or does not bind exactly this request');
  if (row.consumed_ts !== null) throw refuse('approval_consumed', `approval ${row.id} has already been used`);
  if (row.expires_ts <= now.toISOString()) throw refuse('approval_invalid', `approval ${row.id} expired at ${row.expires_ts}`);
}
