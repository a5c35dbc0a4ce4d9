import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, defineOperation } from '../operations/operation.js';
import { PROTOCOL } from '../shared/protocol.js';
import { invalid } from '../shared/errors.js';
import { SpaceParams } from '../spaces/schemas.js';
import { getSpace } from '../spaces/service.js';
import { MarkReadBody, ReadMarkListSchema, ReadMarkSchema } from './schemas.js';
import { listReadMarks as list, markRead, type Conversation } from './service.js';

const OWN = "The caller's own, in a Space they may read; no event.";

export const listReadMarks = defineOperation({
  name: 'list_read_marks',
  who: 'space_members',
  method: 'GET',
  path: '/v0/spaces/{slug}/read-marks',
  tag: 'Messages',
  summary: 'Read how far you have read each conversation of a Space',
  description: `Your read mark per channel and direct conversation that has one. ${OWN}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  success: { status: 200, description: 'The read marks.', schema: Type.Ref('ReadMarkList') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => ({
    read_marks: await list(ctx.db.kysely, actor, await getSpace(ctx.db.kysely, params.slug)),
    protocol: PROTOCOL,
  }),
});

export const markConversationRead = defineOperation({
  name: 'mark_conversation_read',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/read-marks',
  tag: 'Messages',
  summary: 'Mark a channel or direct conversation read up to a message',
  description:
    'Name the channel or, for a direct conversation, the other member (`with`). The mark only moves forward: below it, or past ' +
    `the conversation's newest message, is 422 and nothing changes. ${OWN}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  body: MarkReadBody,
  bodyRequired: true,
  success: { status: 200, description: 'The read mark, as it now stands.', schema: Type.Ref('ReadMark') },
  errors: [401, 403, 404],
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) => {
    const conversation = conversationOf(body);
    return ctx.db.transaction(async (tx) => markRead(tx, actor, await getSpace(tx.db, params.slug), conversation, body.message_id));
  },
});

function conversationOf(body: { channel?: string; with?: string }): Conversation {
  if (body.channel !== undefined && body.with === undefined) return { channel: body.channel };
  if (body.with !== undefined && body.channel === undefined) return { with: body.with };
  throw invalid('validation_failed', 'name one conversation: `channel`, or `with` for a direct conversation');
}

export const readMarkOperations = [listReadMarks, markConversationRead];
export const readMarkSchemas = [ReadMarkSchema, ReadMarkListSchema];
