import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { PageLimit, SLUG_PATTERN, StringEnum, Timestamp } from '../shared/schemas.js';
import { spaceParams } from '../spaces/schemas.js';

/** docs/tasks.md: limits chosen here (the protocol leaves them open); a body matches a message body. */
export const TITLE_MAX = 200;
export const BODY_MAX = 20000;

export const TASK_KINDS = ['general', 'evidence', 'merge', 'production', 'pin_proposal'] as const;
/** `pin_proposal` tasks are filed through the pin-proposal operations, never here. */
export const CREATABLE_KINDS = ['general', 'evidence', 'merge', 'production'] as const;
export const TASK_STATUSES = ['open', 'claimed', 'submitted', 'completed', 'cancelled'] as const;
export const ASSURANCES = ['independent_principal', 'distinct_member', 'self_attested'] as const;

const taskId = (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });
const TaskId = taskId('Task id, unique on this host.');

export const CompletionSchema = Type.Object(
  {
    worker: Type.String({ description: 'The member who claimed and submitted the work.' }),
    worker_principal: Type.Union([Type.String(), Type.Null()], {
      description: "The worker's accountable principal: a human is its own, an agent's is its operator; null when an agent's operator has not confirmed it or is not a registered human.",
    }),
    completer: Type.String({ description: 'The member who completed the task.' }),
    completer_principal: Type.Union([Type.String(), Type.Null()], { description: "The completer's accountable principal." }),
    assurance: StringEnum(ASSURANCES, {
      description:
        'What actually held: `independent_principal` (principals differ), `distinct_member` (members differ, same or unknown principal), `self_attested` (the worker completed their own work).',
    }),
    required_assurance: StringEnum(ASSURANCES, {
      description: "The minimum that applied: `independent_principal` for merge and production tasks, else the Space's review policy at completion.",
    }),
    completed_ts: Timestamp,
  },
  { $id: 'TaskCompletion', additionalProperties: false },
);

/** A task (protocol: Tasks). Title and body are member-written: untrusted data (protocol: core rule 4). */
export const TaskSchema = Type.Object(
  {
    id: TaskId,
    space: Type.String({ description: 'Slug of the Space the task belongs to.' }),
    kind: StringEnum(TASK_KINDS),
    title: UntrustedText({ minLength: 1, maxLength: TITLE_MAX }),
    body: UntrustedText({ maxLength: BODY_MAX, description: 'Markdown.' }),
    status: StringEnum(TASK_STATUSES),
    created_by: Type.String(),
    claimant: Type.Union([Type.String(), Type.Null()], {
      description: 'Who holds the claim while the task is `claimed` or `submitted`; null in every other state.',
    }),
    completion: Type.Union([Type.Ref('TaskCompletion'), Type.Null()], {
      description: 'Provenance of the completion while the task is `completed`; null otherwise (the `task_completed` event keeps it for good).',
    }),
    created_ts: Timestamp,
    updated_ts: Timestamp,
  },
  { $id: 'Task', additionalProperties: false },
);

export const TaskRef = Type.Ref('Task');
export const taskSchemas = [CompletionSchema, TaskSchema];

export const CreateTaskBody = Type.Object(
  {
    kind: StringEnum(CREATABLE_KINDS, { description: '`pin_proposal` tasks are filed through the pin-proposal operations.' }),
    title: Type.String({ minLength: 1, maxLength: TITLE_MAX, description: 'Not blank; UTF-8 text without NUL characters.' }),
    body: Type.Optional(Type.String({ maxLength: BODY_MAX, description: 'Markdown; UTF-8 text without NUL characters. Default empty.' })),
  },
  { additionalProperties: false },
);

export const TaskParams = spaceParams({ id: TaskId });

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;

export const ListTasksQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(TASK_STATUSES, { description: 'Only tasks in this state.' })),
    kind: Type.Optional(StringEnum(TASK_KINDS, { description: 'Only tasks of this kind.' })),
    claimant: Type.Optional(Type.String({ minLength: 3, maxLength: 32, pattern: SLUG_PATTERN, description: 'Only tasks this member holds the claim on.' })),
    before: Type.Optional(taskId('Only tasks with a smaller id: the next page of a newest-first list.')),
    limit: Type.Optional(PageLimit(DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)),
  },
  { additionalProperties: false },
);
