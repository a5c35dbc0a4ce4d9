import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { eventActor, requireOwnerOrHost } from '../roles/authority.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { indexTask } from '../search/index-writes.js';
import { requireAct, requireRead } from '../spaces/admission.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/unique-violation.js';
import type { TaskStatus } from '../tasks/tables.js';
import { NO_WORK } from '../tasks/lifecycle.js';
import { isRepositoryEntry, printable } from './paths.js';
import { resourcesInSpace } from './resources.js';
import { DEFAULT_LIST_LIMIT, type PinProposalRecord, type ProposalFilters, type ProposalStatus, type ProposePinInput } from './schemas.js';
import { appendResource, lockSpace, requirePinnable } from './service.js';

/**
 * Pin proposals (protocol: Pin proposals): any member who may
 * act in the Space asks the Owner/Host to pin one of its Resources. A proposal
 * is a `pin_proposal` task, so it shares the host's task ids and shows in task
 * listings; its states map onto the task statuses (pending = `open`, accepted =
 * `completed`, declined = `cancelled`), and only these operations move it.
 * Every write locks the Space row first, then the proposal: one order, so
 * writers never deadlock, and of two racing decisions the second sees the first.
 */

const TASK_STATUS: Record<ProposalStatus, TaskStatus> = { pending: 'open', accepted: 'completed', declined: 'cancelled' };

function proposalStatus(status: TaskStatus): ProposalStatus {
  if (status === 'completed') return 'accepted';
  if (status === 'cancelled') return 'declined';
  return 'pending';
}

function proposalQuery(db: Kysely<DatabaseSchema>, slug: string) {
  return db
    .selectFrom('tasks as t')
    .leftJoin('pin_proposal_decisions as d', 'd.task_id', 't.id')
    .select(['t.id', 't.space', 't.resource_id', 't.rationale', 't.status', 't.created_by', 't.created_ts', 'd.decided_by', 'd.reason', 'd.decided_ts'])
    .where('t.space', '=', slug)
    .where('t.kind', '=', 'pin_proposal');
}

type ProposalRow = Awaited<ReturnType<ReturnType<typeof proposalQuery>['executeTakeFirstOrThrow']>>;

function toRecord(row: ProposalRow): PinProposalRecord {
  const status = proposalStatus(row.status);
  return {
    id: Number(row.id),
    space: row.space,
    resource_id: row.resource_id ?? '',
    rationale: row.rationale ?? '',
    status,
    proposed_by: row.created_by,
    decided_by: row.decided_by ?? null,
    decline_reason: status === 'declined' ? (row.reason ?? '') : null,
    created_ts: row.created_ts,
    decided_ts: row.decided_ts ?? null,
  };
}

async function proposal(db: Kysely<DatabaseSchema>, slug: string, id: number): Promise<PinProposalRecord> {
  const row = await proposalQuery(db, slug).where('t.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('pin_proposal_not_found', `no pin proposal ${id} in Space ${slug}`);
  return toRecord(row);
}

export async function proposePin(tx: Tx, actor: Actor, slug: string, input: ProposePinInput): Promise<PinProposalRecord> {
  const space = await lockSpace(tx, slug);
  const member = await requireAct(tx.db, actor, space);
  requirePinnable(space);
  const resourceId = input.resource_id;
  const me = member.member.handle;
  if (input.rationale.trim() === '') throw invalid('validation_failed', 'body.rationale must not be blank');
  if (isRepositoryEntry(resourceId)) {
    throw invalid('validation_failed', 'body.resource_id: repository-file pins are host-only and never proposed; an Owner/Host pins them with POST …/pins');
  }
  if (!(await resourcesInSpace(tx.db, slug, [resourceId])).has(resourceId)) {
    throw invalid('unknown_reference', `body.resource_id: no Resource ${printable(resourceId)} in Space ${slug}`);
  }
  if (space.pinned_resources.includes(resourceId)) throw conflict('already_pinned', `Resource ${resourceId} is already pinned in Space ${slug}`);
  const pending = tx.db
    .selectFrom('tasks')
    .select(['id', 'created_by'])
    .where('space', '=', slug)
    .where('kind', '=', 'pin_proposal')
    .where('status', '=', 'open');
  const forResource = await pending.where('resource_id', '=', resourceId).executeTakeFirst();
  if (forResource) throw conflict('pin_proposal_exists', `Resource ${resourceId} already has a pending pin proposal (${forResource.id}, by ${forResource.created_by})`);
  const mine = await pending.where('created_by', '=', me).executeTakeFirst();
  if (mine) throw conflict('pin_proposal_exists', `${me} already has an unresolved pin proposal in Space ${slug} (${mine.id}): one at a time`);

  const ts = tx.now.toISOString();
  const title = `Pin resource ${resourceId}`;
  let id: number;
  try {
    const inserted = await tx.db
      .insertInto('tasks')
      .values({
        space: slug,
        kind: 'pin_proposal',
        title,
        // The rationale is also the task body, so generic task views say why.
        body: input.rationale,
        status: 'open',
        created_by: me,
        ...NO_WORK,
        resource_id: resourceId,
        rationale: input.rationale,
        created_ts: ts,
        updated_ts: ts,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    id = Number(inserted.id);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('pin_proposal_exists', `a pin proposal for Resource ${resourceId}, or by ${me}, is already pending in Space ${slug}`);
    throw err;
  }
  await indexTask(tx, { id, space: slug, title, body: input.rationale, created_by: me, created_ts: ts });
  tx.emit({
    type: 'pin_proposed',
    space: slug,
    actor: { handle: me },
    subjects: [`space:${slug}`, `task:${id}`, `resource:${resourceId}`, `member:${me}`],
    payload: { id, resource_id: resourceId, proposed_by: me, rationale: input.rationale },
  });
  return proposal(tx.db, slug, id);
}

/** The proposal row for a decision, held until commit on PostgreSQL; a task of another kind or Space is 404. */
async function lockProposal(tx: Tx, slug: string, id: number) {
  const query = tx.db
    .selectFrom('tasks')
    .select(['id', 'status', 'resource_id', 'created_by'])
    .where('id', '=', id)
    .where('space', '=', slug)
    .where('kind', '=', 'pin_proposal');
  const row = await (tx.dialect === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('pin_proposal_not_found', `no pin proposal ${id} in Space ${slug}`);
  if (row.status !== 'open') throw conflict('pin_proposal_resolved', `pin proposal ${id} is already ${proposalStatus(row.status)}`);
  return { id: Number(row.id), resourceId: row.resource_id ?? '', proposedBy: row.created_by };
}

async function decide(tx: Tx, actor: Actor, id: number, decision: 'accepted' | 'declined', reason: string): Promise<void> {
  const ts = tx.now.toISOString();
  // Conditional on `open` as well as locked: a decision can never overwrite another one.
  const result = await tx.db
    .updateTable('tasks')
    .set({ status: TASK_STATUS[decision], updated_ts: ts })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw conflict('pin_proposal_resolved', `pin proposal ${id} is no longer pending`);
  await tx.db
    .insertInto('pin_proposal_decisions')
    .values({ task_id: id, decision, decided_by: actor.kind === 'member' ? actor.member.handle : null, reason, decided_ts: ts })
    .execute();
}

/**
 * Accept (host-gated): appends the Resource to the pins. 409 when five pins
 * exist (nothing changes, the proposal stays pending). A Resource pinned in the
 * meantime is accepted without touching the pins.
 */
export async function acceptProposal(tx: Tx, actor: Actor, slug: string, id: number): Promise<PinProposalRecord> {
  const space = await lockSpace(tx, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  requirePinnable(space);
  const found = await lockProposal(tx, slug, id);
  if (!(await resourcesInSpace(tx.db, slug, [found.resourceId])).has(found.resourceId)) {
    throw conflict('pin_proposal_stale', `Resource ${found.resourceId} no longer exists in Space ${slug}`);
  }
  await decide(tx, actor, id, 'accepted', '');
  const subjects = [`space:${slug}`, `task:${id}`, `resource:${found.resourceId}`, `member:${found.proposedBy}`];
  tx.emit({
    type: 'pin_proposal_accepted',
    space: slug,
    actor: eventActor(actor),
    subjects,
    payload: { id, resource_id: found.resourceId, proposed_by: found.proposedBy },
  });
  await appendResource(tx, actor, space, found.resourceId, '', id);
  return proposal(tx.db, slug, id);
}

/**
 * Pending proposals of Resources an Owner/Host has just pinned by setting the
 * whole list are settled as accepted in the same transaction: the Resource is
 * pinned, which is what they asked for, and a proposal nobody can act on any
 * more must not stay pending forever.
 */
export async function acceptProposalsNowPinned(tx: Tx, actor: Actor, space: { slug: string; pinned_resources: readonly string[] }): Promise<void> {
  const pinned = space.pinned_resources.filter((entry) => !isRepositoryEntry(entry));
  if (pinned.length === 0) return;
  const open = await tx.db
    .selectFrom('tasks')
    .select(['id', 'resource_id', 'created_by'])
    .where('space', '=', space.slug)
    .where('kind', '=', 'pin_proposal')
    .where('status', '=', 'open')
    .where('resource_id', 'in', pinned)
    .orderBy('id')
    .execute();
  for (const row of open) {
    const id = Number(row.id);
    await decide(tx, actor, id, 'accepted', 'pinned by an Owner/Host setting the pins');
    tx.emit({
      type: 'pin_proposal_accepted',
      space: space.slug,
      actor: eventActor(actor),
      subjects: [`space:${space.slug}`, `task:${id}`, `resource:${row.resource_id ?? ''}`, `member:${row.created_by}`],
      payload: { id, resource_id: row.resource_id ?? '', proposed_by: row.created_by },
    });
  }
}

export async function declineProposal(tx: Tx, actor: Actor, slug: string, id: number, reason: string): Promise<PinProposalRecord> {
  const space = await lockSpace(tx, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  requirePinnable(space);
  if (reason.trim() === '') throw invalid('validation_failed', 'body.reason must not be blank');
  const found = await lockProposal(tx, slug, id);
  await decide(tx, actor, id, 'declined', reason);
  tx.emit({
    type: 'pin_proposal_declined',
    space: slug,
    actor: eventActor(actor),
    subjects: [`space:${slug}`, `task:${id}`, `resource:${found.resourceId}`, `member:${found.proposedBy}`],
    payload: { id, resource_id: found.resourceId, proposed_by: found.proposedBy, reason },
  });
  return proposal(tx.db, slug, id);
}

/** The history (protocol: Pin proposals), newest first; follows read access. */
export async function listProposals(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, filters: ProposalFilters): Promise<PinProposalRecord[]> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  let query = proposalQuery(db, slug);
  if (filters.status !== undefined) query = query.where('t.status', '=', TASK_STATUS[filters.status]);
  if (filters.before !== undefined) query = query.where('t.id', '<', filters.before);
  const rows = await query
    .orderBy('t.id', 'desc')
    .limit(filters.limit ?? DEFAULT_LIST_LIMIT)
    .execute();
  return rows.map(toRecord);
}

export async function readProposal(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, id: number): Promise<PinProposalRecord> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  return proposal(db, slug, id);
}
