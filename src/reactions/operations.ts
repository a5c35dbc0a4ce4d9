import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, defineOperation } from '../operations/operation.js';
import { MessageRef } from '../messages/schemas.js';
import { spaceParams } from '../spaces/schemas.js';
import { MAX_DISTINCT_REACTIONS } from './schemas.js';
import { addReaction as add, removeReaction as remove } from './service.js';

const ReactionParams = spaceParams({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The message id.' }),
  emoji: Type.String({ minLength: 1, description: 'One fully-qualified Unicode emoji; URL-encoded in a path.' }),
});

const WHO = 'By members who may read the message and post where it is (a direct message: its two participants). Answers the message.';

/** PUT and DELETE of one reaction differ only in what they do: same path, same callers, same answer. */
function reactionOperation(declared: { name: string; method: 'PUT' | 'DELETE'; summary: string; rule: string; change: typeof add }) {
  return defineOperation({
    name: declared.name,
    method: declared.method,
    path: '/v0/spaces/{slug}/messages/{id}/reactions/{emoji}',
    tag: 'Messages',
    who: 'space_members',
    summary: declared.summary,
    description: `${WHO} ${declared.rule}`,
    auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
    params: ReactionParams,
    success: { status: 200, description: 'The message.', schema: MessageRef },
    errors: [401, 403, 404, 409],
    idempotent: true,
    handler: async ({ params, actor, ctx }) =>
      ctx.db.transaction((tx) => declared.change(tx, actor, { slug: params.slug, messageId: params.id, emoji: params.emoji })),
  });
}

export const addReaction = reactionOperation({
  name: 'add_reaction',
  method: 'PUT',
  summary: 'React to a message with an emoji',
  rule: `Once per member and emoji: again changes nothing. At most ${MAX_DISTINCT_REACTIONS} different emoji per message (409); none on a deleted message (409).`,
  change: add,
});

export const removeReaction = reactionOperation({
  name: 'remove_reaction',
  method: 'DELETE',
  summary: 'Take back your reaction to a message',
  rule: 'One you have not made: nothing changes.',
  change: remove,
});

export const reactionOperations = [addReaction, removeReaction];
