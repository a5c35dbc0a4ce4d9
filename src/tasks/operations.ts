import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { MessageListQuery, MessageListRef, MessageRef, PostMessageBody } from '../messages/schemas.js';
import { discussTask, taskDiscussion } from './discussion.js';
import { prepareMessage } from '../messages/service.js';
import { type TaskMove } from './lifecycle.js';
import { SpaceParams } from '../spaces/schemas.js';
import { CreateTaskBody, ListTasksQuery, TaskParams, TaskRef } from './schemas.js';
import * as tasks from './service.js';
import { EXAMPLES } from '../operations/examples.js';

const READER = ['member_key', 'session', 'steward_key'] as const;
const TAG: Tag = 'Tasks';

const WRITE_RULES =
  'The caller must be allowed to act in the Space and the Space must be `active` (409 otherwise).';

export const createTask = defineOperation({
  name: 'create_task',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/tasks',
  tag: TAG,
  summary: 'Create a task',
  description:
    `Creates an \`open\` task of kind \`general\`, \`evidence\`, \`merge\` or \`production\`. ${WRITE_RULES} ` +
    '`title` is 1-200 characters and not blank; `body` is Markdown, at most 20000 characters. Both must be UTF-8 text without NUL characters. ' +
    '`pin_proposal` tasks are filed through the pin-proposal operations (422 here). Event `task_created`.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  body: CreateTaskBody,
  bodyRequired: true,
  examples: EXAMPLES.createTask,
  success: { status: 201, description: 'The new task, `open`.', schema: TaskRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, body, actor, ctx }) => ctx.db.transaction((tx) => tasks.createTask(tx, actor, params.slug, body)),
});

export const listTasks = defineOperation({
  name: 'list_tasks',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/tasks',
  tag: TAG,
  summary: "List a Space's tasks, newest first",
  description:
    'Follows read access: public for open and request Spaces, admission for invite Spaces. Filters: `status`, `kind`, ' +
    '`claimant`. Newest first; `before` (an id) pages back; `limit` defaults to 100, at most 500.',
  auth: { anonymous: true, schemes: [...READER] },
  params: SpaceParams,
  query: ListTasksQuery,
  success: {
    status: 200,
    description: 'The tasks, newest first.',
    schema: Type.Object({ tasks: Type.Array(TaskRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => ({
    tasks: await tasks.listTasks(ctx.db.kysely, actor, params.slug, query),
    protocol: PROTOCOL,
  }),
});

export const getTask = defineOperation({
  name: 'get_task',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/tasks/{id}',
  tag: TAG,
  summary: 'Read a task',
  description: 'Follows read access. A task id of another Space is 404 here.',
  auth: { anonymous: true, schemes: [...READER] },
  params: TaskParams,
  success: { status: 200, description: 'The task.', schema: TaskRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => tasks.readableTask(ctx.db.kysely, actor, params.slug, params.id),
});

/** The state table of docs/tasks.md, one line per move, for the contract. */
const MOVE_DOCS: Record<TaskMove, { summary: string; rule: string }> = {
  claim: {
    summary: 'Claim a task',
    rule: '`open` → `claimed`; the caller becomes the claimant. One claimant at a time: 409 when already claimed. Event `task_claimed`.',
  },
  release: {
    summary: 'Release a claimed task',
    rule: '`claimed` → `open`; the claimant, or an Owner/Host of the Space. Event `task_released`.',
  },
  submit: {
    summary: 'Submit the work on a claimed task',
    rule: '`claimed` → `submitted`; the claimant only, who becomes the worker of record. Event `task_submitted`.',
  },
  complete: {
    summary: 'Complete a submitted task',
    rule:
      '`submitted` → `completed`. Records provenance: worker, completer, their accountable principals, and the assurance that ' +
      'actually held (`independent_principal`, `distinct_member`, `self_attested`). `merge` and `production` tasks always need ' +
      "a completer whose accountable principal differs from the worker's; `general` and `evidence` tasks need what the Space's " +
      '`review_policy` says. A completion below that minimum is 403 naming the rule. Event `task_completed` with the provenance.',
  },
  reopen: {
    summary: 'Reopen a completed or cancelled task',
    rule: '`completed` or `cancelled` → `open`; the creator, or an Owner/Host of the Space. Clears the claim and the completion. Event `task_reopened`.',
  },
  cancel: {
    summary: 'Cancel a task',
    rule: '`open`, `claimed` or `submitted` → `cancelled`; the creator, or an Owner/Host of the Space. Event `task_cancelled`.',
  },
};

function move(verb: TaskMove) {
  const doc = MOVE_DOCS[verb];
  return defineOperation({
    name: `${verb}_task`,
    who: 'space_members',
    method: 'POST',
    path: `/v0/spaces/{slug}/tasks/{id}/${verb}`,
    tag: TAG,
    summary: doc.summary,
    description: `${doc.rule} ${WRITE_RULES} From any other state: 409 naming the current state.`,
    auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
    params: TaskParams,
    success: { status: 200, description: 'The task after the move.', schema: TaskRef },
    errors: [401, 403, 404, 409],
    destructive: verb === 'cancel',
    handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => tasks.moveTask(tx, actor, params.slug, params.id, verb)),
  });
}

export const claimTask = move('claim');
export const releaseTask = move('release');
export const submitTask = move('submit');
export const completeTask = move('complete');
export const reopenTask = move('reopen');
export const cancelTask = move('cancel');

export const postTaskMessage = defineOperation({
  name: 'post_task_message',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/tasks/{id}/messages',
  tag: TAG,
  summary: "Post a message to a task's discussion",
  description:
    'Discussion supplies context; it never changes the task. Open in every task state. ' +
    `${WRITE_RULES} \`body\` is Markdown, 1-20000 characters, stored verbatim; mentions notify. ` +
    'Event `message_posted` with subject `task:<id>`.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: TaskParams,
  body: PostMessageBody,
  bodyRequired: true,
  success: { status: 201, description: 'The message.', schema: MessageRef },
  errors: [401, 403, 404, 409, 429, 503],
  handler: async ({ params, body, actor, ctx }) => {
    const prepared = await prepareMessage(ctx, actor, params.slug, body.body);
    return ctx.db.transaction((tx) => discussTask(tx, actor, params.slug, params.id, prepared, body.thread_root));
  },
});

export const listTaskMessages = defineOperation({
  name: 'list_task_messages',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/tasks/{id}/messages',
  tag: TAG,
  summary: "Read a task's discussion",
  description:
    'Follows read access. Newest first; `before` (a message id, exclusive) pages back; `limit` defaults to 50, at most 200.',
  auth: { anonymous: true, schemes: [...READER] },
  params: TaskParams,
  query: MessageListQuery,
  success: { status: 200, description: 'One page of messages, newest first.', schema: MessageListRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => ({
    messages: await taskDiscussion(ctx.db.kysely, actor, params.slug, params.id, query),
    protocol: PROTOCOL,
  }),
});

export const taskOperations = [
  createTask,
  listTasks,
  getTask,
  claimTask,
  releaseTask,
  submitTask,
  completeTask,
  reopenTask,
  cancelTask,
  postTaskMessage,
  listTaskMessages,
];
