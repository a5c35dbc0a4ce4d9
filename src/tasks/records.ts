import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { CompletionSchema, TaskSchema } from './schemas.js';
import type { TaskTable } from './tables.js';

export type TaskCompletion = Static<typeof CompletionSchema>;

/** The wire shape of a task (schemas.ts `Task`), exactly its documented fields; `completion` is a $ref there. */
export type TaskRecord = Omit<Static<typeof TaskSchema>, 'completion'> & { completion: TaskCompletion | null };

export type TaskRow = Selectable<TaskTable>;

export function toTaskRecord(row: TaskRow): TaskRecord {
  return {
    id: Number(row.id),
    space: row.space,
    kind: row.kind,
    title: row.title,
    body: row.body,
    status: row.status,
    created_by: row.created_by,
    claimant: row.claimant,
    completion: completionOf(row),
    created_ts: row.created_ts,
    updated_ts: row.updated_ts,
  };
}

/** Provenance is shown while the task is completed; reopening clears it (the event keeps it). */
function completionOf(row: TaskRow): TaskCompletion | null {
  const { worker, completer, assurance, required_assurance, completed_ts } = row;
  if (row.status !== 'completed' || !worker || !completer || !assurance || !required_assurance || !completed_ts) return null;
  return {
    worker,
    worker_principal: row.worker_principal,
    completer,
    completer_principal: row.completer_principal,
    assurance,
    required_assurance,
    completed_ts,
  };
}
