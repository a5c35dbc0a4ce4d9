import type { Kysely } from 'kysely';
import type { Actor, MemberActor } from '../identity/actor.js';
import { getMember } from '../members/service.js';
import { isOwnerOrHost } from '../roles/authority.js';
import { conflict, forbidden, invalid, notFound } from '../shared/errors.js';
import { requireAct, requireRead } from '../spaces/admission.js';
import { toSpaceRecord, type SpaceRecord } from '../spaces/records.js';
import { getSpace } from '../spaces/service.js';
import { indexTask } from '../search/index-writes.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { listStates, MOVES, NO_WORK, type TaskMove } from './lifecycle.js';
import { assuranceOf, principalOf, refusal, requiredAssurance, satisfies, type Provenance } from './provenance.js';
import { toTaskRecord, type TaskRecord, type TaskRow } from './records.js';
import { DEFAULT_LIST_LIMIT } from './schemas.js';
import type { TaskKind, TaskStatus, TaskTable } from './tables.js';

/**
 * Tasks (protocol: Tasks): typed records that change state (protocol: core rule 2),
 * with a lifecycle (lifecycle.ts) and completion provenance (provenance.ts).
 * Every move is a conditional update on the state it expects, on a row held
 * until commit on PostgreSQL, so of two racing moves exactly one happens.
 */

export interface NewTask {
  kind: Exclude<TaskKind, 'pin_proposal'>;
  title: string;
  body?: string;
}

export interface TaskFilters {
  status?: TaskStatus;
  kind?: TaskKind;
  claimant?: string;
  before?: number;
  limit?: number;
}

/** A blank title names nothing. Storability is checked at the edge (src/content/text.ts). */
function checkTitle(title: string): void {
  if (title.trim() === '') throw invalid('validation_failed', 'body.title must not be blank');
}

/**
 * The Space a task write happens in: the caller must be allowed to act there
 * (protocol: Space admission) and content changes only in `active` Spaces (409 otherwise).
 * A completion reads the review policy under a share lock on PostgreSQL, so a
 * concurrent policy change (which locks the row to update it) commits either
 * wholly before or wholly after it, never between the check and the commit.
 */
async function writableSpace(tx: Tx, actor: Actor, slug: string, holdPolicy = false): Promise<{ space: SpaceRecord; member: MemberActor }> {
  const query = tx.db.selectFrom('spaces').selectAll().where('slug', '=', slug);
  const row = await (holdPolicy && tx.dialect === 'postgres' ? query.forShare() : query).executeTakeFirst();
  if (!row) throw notFound('space_not_found', `no such Space: ${slug}`);
  const space = toSpaceRecord(row);
  const member = await requireAct(tx.db, actor, space);
  if (space.status !== 'active') throw conflict('space_not_active', `Space ${slug} is ${space.status}: tasks change only in active Spaces`);
  return { space, member };
}

function subjects(slug: string, id: number, handles: Array<string | null>): string[] {
  const members = [...new Set(handles.filter((h): h is string => h !== null))];
  return [`space:${slug}`, `task:${id}`, ...members.map((h) => `member:${h}`)];
}

export async function createTask(tx: Tx, actor: Actor, slug: string, input: NewTask): Promise<TaskRecord> {
  const body = input.body ?? '';
  checkTitle(input.title);
  const { member } = await writableSpace(tx, actor, slug);
  const creator = member.member.handle;
  const ts = tx.now.toISOString();
  const inserted = await tx.db
    .insertInto('tasks')
    .values({
      space: slug,
      kind: input.kind,
      title: input.title,
      body,
      status: 'open',
      created_by: creator,
      ...NO_WORK,
      resource_id: null,
      rationale: null,
      created_ts: ts,
      updated_ts: ts,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(inserted.id);
  await indexTask(tx, { id, space: slug, title: input.title, body, created_by: creator, created_ts: ts });
  tx.emit({
    type: 'task_created',
    space: slug,
    actor: { handle: creator },
    subjects: subjects(slug, id, [creator]),
    payload: { id, kind: input.kind, created_by: creator },
  });
  return toTaskRecord(await taskRow(tx.db, slug, id));
}

/** A task of this Space, or 404: an id that belongs to another Space is not found here. */
async function taskRow(db: Kysely<DatabaseSchema>, slug: string, id: number): Promise<TaskRow> {
  const row = await db.selectFrom('tasks').selectAll().where('id', '=', id).where('space', '=', slug).executeTakeFirst();
  if (!row) throw notFound('task_not_found', `no task ${id} in Space ${slug}`);
  return row;
}

/**
 * The task row for a read-modify-write, held until commit on PostgreSQL: a
 * racing move waits, then sees the state the first one committed.
 * `FOR NO KEY UPDATE` is the lock the UPDATE takes itself, and unlike
 * `FOR UPDATE` it does not block rows that merely reference the task.
 */
async function lockTask(tx: Tx, slug: string, id: number): Promise<TaskRow> {
  const query = tx.db.selectFrom('tasks').selectAll().where('id', '=', id).where('space', '=', slug);
  const row = await (tx.dialect === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('task_not_found', `no task ${id} in Space ${slug}`);
  return row;
}

/** Read access follows the Space (protocol: Space admission): public for open and request Spaces. */
export async function readableTask(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, id: number): Promise<TaskRecord> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  return toTaskRecord(await taskRow(db, slug, id));
}

export async function listTasks(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, filters: TaskFilters): Promise<TaskRecord[]> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  let query = db.selectFrom('tasks').selectAll().where('space', '=', slug);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.kind !== undefined) query = query.where('kind', '=', filters.kind);
  if (filters.claimant !== undefined) query = query.where('claimant', '=', filters.claimant);
  if (filters.before !== undefined) query = query.where('id', '<', filters.before);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(filters.limit ?? DEFAULT_LIST_LIMIT)
    .execute();
  return rows.map(toTaskRecord);
}

function describeState(row: TaskRow): string {
  return row.claimant !== null && (row.status === 'claimed' || row.status === 'submitted') ? `${row.status} by ${row.claimant}` : row.status;
}

type Changes = Partial<Omit<TaskTable, 'id'>>;

/** One lifecycle move (lifecycle.ts). Checks run in order: Space, caller, task, state (409), who may (403). */
export async function moveTask(tx: Tx, actor: Actor, slug: string, id: number, move: TaskMove): Promise<TaskRecord> {
  const rule = MOVES[move];
  const { space, member } = await writableSpace(tx, actor, slug, move === 'complete');
  const task = await lockTask(tx, slug, id);
  if (task.kind === 'pin_proposal') {
    throw conflict('task_is_pin_proposal', `task ${id} is a pin proposal: it is accepted or declined through /v0/spaces/${slug}/pin-proposals/${id}`);
  }
  if (!(rule.from as readonly TaskStatus[]).includes(task.status)) {
    throw conflict('task_transition_invalid', `cannot ${move} task ${id}: it is ${describeState(task)}, not ${listStates(rule.from)}`);
  }
  const me = member.member.handle;
  const ts = tx.now.toISOString();
  const ownerHost = () => isOwnerOrHost(tx.db, actor, { space: slug });
  const base = { space: slug, actor: { handle: me } };
  const common = { id, kind: task.kind };
  let changes: Changes;

  switch (move) {
    case 'claim':
      changes = { claimant: me, claimed_ts: ts };
      tx.emit({ ...base, type: 'task_claimed', subjects: subjects(slug, id, [me]), payload: { ...common, claimant: me } });
      break;
    case 'release': {
      const claimant = task.claimant!;
      if (claimant !== me && !(await ownerHost())) {
        throw forbidden('not_claimant', `only the claimant (${claimant}) or an Owner/Host of Space ${slug} may release task ${id}`);
      }
      changes = { claimant: null, claimed_ts: null };
      tx.emit({
        ...base,
        type: 'task_released',
        subjects: subjects(slug, id, [me, claimant]),
        payload: { ...common, claimant, released_by: me },
      });
      break;
    }
    case 'submit':
      if (task.claimant !== me) throw forbidden('not_claimant', `only the claimant (${task.claimant}) may submit task ${id}`);
      changes = { submitted_ts: ts };
      tx.emit({ ...base, type: 'task_submitted', subjects: subjects(slug, id, [me]), payload: { ...common, worker: me } });
      break;
    case 'complete': {
      const provenance = await completionProvenance(tx.db, task, member, space);
      if (!satisfies(provenance.assurance, provenance.required_assurance)) throw forbidden('provenance_insufficient', refusal(provenance, task, space));
      changes = { claimant: null, ...provenance, completed_ts: ts };
      tx.emit({
        ...base,
        type: 'task_completed',
        subjects: subjects(slug, id, [me, provenance.worker]),
        payload: { ...common, ...provenance },
      });
      break;
    }
    case 'reopen':
    case 'cancel': {
      if (task.created_by !== me && !(await ownerHost())) {
        throw forbidden('not_task_creator', `only the task's creator (${task.created_by}) or an Owner/Host of Space ${slug} may ${move} task ${id}`);
      }
      changes = { ...NO_WORK };
      const event = { ...base, subjects: subjects(slug, id, [me, task.claimant]) };
      if (move === 'reopen') tx.emit({ ...event, type: 'task_reopened', payload: { ...common, previous_status: task.status } });
      else tx.emit({ ...event, type: 'task_cancelled', payload: { ...common, previous_status: task.status, claimant: task.claimant } });
      break;
    }
  }

  // Conditional on the state read above: SQLite serialises writers and
  // PostgreSQL holds the row, so this is a guard, not the primary defence.
  let update = tx.db
    .updateTable('tasks')
    .set({ ...changes, status: rule.to, updated_ts: ts })
    .where('id', '=', id)
    .where('status', '=', task.status);
  update = task.claimant === null ? update.where('claimant', 'is', null) : update.where('claimant', '=', task.claimant);
  const result = await update.executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) {
    throw conflict('task_transition_invalid', `cannot ${move} task ${id}: it is ${describeState(await taskRow(tx.db, slug, id))}, not ${listStates(rule.from)}`);
  }
  return toTaskRecord(await taskRow(tx.db, slug, id));
}

/** The worker is whoever submitted (the claimant); the completer is the caller. */
async function completionProvenance(
  db: Kysely<DatabaseSchema>,
  task: TaskRow,
  completer: MemberActor,
  space: SpaceRecord,
): Promise<Provenance> {
  const worker = await getMember(db, task.claimant!);
  const workerPrincipal = await principalOf(db, worker);
  const completerPrincipal = await principalOf(db, completer.member);
  return {
    worker: worker.handle,
    worker_principal: workerPrincipal,
    completer: completer.member.handle,
    completer_principal: completerPrincipal,
    assurance: assuranceOf(worker.handle, workerPrincipal, completer.member.handle, completerPrincipal),
    required_assurance: requiredAssurance(task.kind, space.review_policy),
  };
}
