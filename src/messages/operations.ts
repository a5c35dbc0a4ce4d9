import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, OWNER_HOST_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { ChannelName } from '../channels/schemas.js';
import { Handle } from '../shared/schemas.js';
import { SpaceParams, spaceParams } from '../spaces/schemas.js';
import { getSpace } from '../spaces/service.js';
import {
  ConversationListQuery,
  ConversationListSchema,
  DirectMessageBody,
  MessageListQuery,
  MessageListRef,
  MessageListSchema,
  MessageRef,
  MessageSchema,
  PostMessageBody,
  EditMessageBody,
  MessageVersionListSchema,
  ThreadQuery,
  ThreadSchema,
} from './schemas.js';
import * as deletion from './deletion.js';
import * as edits from './edits.js';
import * as messages from './service.js';
import { EXAMPLES } from '../operations/examples.js';

const TAG: Tag = 'Messages';

const ChannelParams = spaceParams({ channel: Type.String({ ...ChannelName, description: 'The channel, by name.' }) });
const ConversationParams = spaceParams({ handle: Type.String({ ...Handle, description: 'The other member of the direct conversation.' }) });

const PAGING =
  'Newest first. Page back with `before` set to the last id of the previous page (exclusive); `limit` defaults to 50, at most 200. ' +
  'Top-level messages only; `thread_root` lists that thread (root and replies) instead.';

const THREADS =
  '`thread_root` makes it a reply to a top-level message of the same conversation (422 `thread_root_invalid` otherwise); ' +
  "a reply notifies the thread's earlier authors.";

const MessageParams = spaceParams({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The message id.' }) });

export const postMessage = defineOperation({
  name: 'post_message',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/channels/{channel}/messages',
  tag: TAG,
  summary: 'Post a message to a channel',
  description:
    'Any member who may act in the Space; the Space must be active (409 otherwise). `body` is Markdown, 1-20000 characters, ' +
    'stored verbatim. Mentions of active members (`@handle` in plain text) are resolved once and notify them through ' +
    'their inbox. Event `message_posted`. Finding mentions has a time budget (ATRIUM_MENTION_PARSE_TIMEOUT_MS): a body too ' +
    'complex to check is 422; a member with ATRIUM_MENTION_PARSE_PER_MEMBER bodies already being checked gets 429, and ' +
    'a host too busy to check the body within its budget answers 503; both with Retry-After. ' +
    THREADS,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: ChannelParams,
  body: PostMessageBody,
  bodyRequired: true,
  examples: EXAMPLES.postMessage,
  success: { status: 201, description: 'The message.', schema: MessageRef },
  errors: [401, 403, 404, 409, 429, 503],
  handler: async ({ params, body, actor, ctx }) => {
    const prepared = await messages.prepareMessage(ctx, actor, params.slug, body.body);
    return ctx.db.transaction(async (tx) =>
      messages.postMessage(tx, actor, params.slug, { channel: params.channel }, prepared, body.thread_root),
    );
  },
});

export const listMessages = defineOperation({
  name: 'list_messages',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/channels/{channel}/messages',
  tag: TAG,
  summary: "Read a channel's messages",
  description: `Follows read access: public for open and request Spaces; invite Spaces need current admission. ${PAGING}`,
  auth: { anonymous: true, schemes: [...MEMBER_CREDENTIALS, 'steward_key'] },
  params: ChannelParams,
  query: MessageListQuery,
  success: { status: 200, description: 'One page of messages, newest first.', schema: MessageListRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    return {
      messages: await messages.listMessages(ctx.db.kysely, actor, space, { channel: params.channel }, query),
      protocol: PROTOCOL,
    };
  },
});

export const sendDirectMessage = defineOperation({
  name: 'send_direct_message',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/direct-messages',
  tag: TAG,
  summary: 'Send a direct message to one member',
  description:
    'A direct conversation between two members inside the Space: both must be able to act in it (403 otherwise), and the ' +
    'Space must be active (409). An unknown `to` is 422. The message carries `direct_members` (the two, sorted) and names ' +
    'the recipient in `mentioned_members`. Only the two participants can read it, in listings and in every event feed. ' +
    THREADS,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  body: DirectMessageBody,
  bodyRequired: true,
  success: { status: 201, description: 'The direct message.', schema: MessageRef },
  errors: [401, 403, 404, 409, 429, 503],
  handler: async ({ params, body, actor, ctx }) => {
    const prepared = await messages.prepareMessage(ctx, actor, params.slug, body.body);
    return ctx.db.transaction(async (tx) =>
      messages.postMessage(tx, actor, params.slug, { direct: body.to }, prepared, body.thread_root),
    );
  },
});

export const listDirectMessages = defineOperation({
  name: 'list_direct_messages',
  who: 'space_members',
  method: 'GET',
  path: '/v0/spaces/{slug}/direct-messages/{handle}',
  tag: TAG,
  summary: 'Read your direct conversation with one member',
  description: `The caller's conversation with \`handle\` in this Space; nobody else can read it. Needs read access to the Space. ${PAGING}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: ConversationParams,
  query: MessageListQuery,
  success: { status: 200, description: 'One page of the conversation, newest first.', schema: MessageListRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    return {
      messages: await messages.listMessages(ctx.db.kysely, actor, space, { direct: params.handle }, query),
      protocol: PROTOCOL,
    };
  },
});

export const listConversations = defineOperation({
  name: 'list_direct_conversations',
  who: 'space_members',
  method: 'GET',
  path: '/v0/spaces/{slug}/direct-messages',
  tag: TAG,
  summary: 'List your direct conversations in a Space',
  description:
    "The caller's direct conversations in this Space, the most recently active first, each with the other member and its " +
    'newest message; read one with `GET /v0/spaces/{slug}/direct-messages/{handle}`. Needs read access to the Space. ' +
    '`limit` defaults to 50, at most 200; page back with `before` set to the last `last_message.id` of the previous page.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  query: ConversationListQuery,
  success: { status: 200, description: 'One page of conversations.', schema: Type.Ref('ConversationList') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    return { conversations: await messages.listConversations(ctx.db.kysely, actor, space, query), protocol: PROTOCOL };
  },
});

export const readThread = defineOperation({
  name: 'read_thread',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/messages/{id}/thread',
  tag: TAG,
  summary: 'Read the thread of a message',
  description:
    "The thread `id` belongs to (as root or reply): its root and a page of replies, newest first (`before`, `limit` as in listings). " +
    'Read access as for the message: a direct message only by its participants (404 `message_not_found` otherwise).',
  auth: { anonymous: true, schemes: [...MEMBER_CREDENTIALS, 'steward_key'] },
  params: MessageParams,
  query: ThreadQuery,
  success: { status: 200, description: 'The root and one page of replies.', schema: Type.Ref('Thread') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    return { ...(await messages.readThread(ctx.db.kysely, actor, space, params.id, query)), protocol: PROTOCOL };
  },
});

export const editMessage = defineOperation({
  name: 'edit_message',
  who: 'space_members',
  method: 'PATCH',
  path: '/v0/spaces/{slug}/messages/{id}',
  tag: TAG,
  summary: 'Edit your message',
  description:
    'The author only (403 `not_message_author`), while they may still post there (403; 409 for an inactive Space). ' +
    '`expected_version` is the version you edited: 409 `message_version_conflict` if it is stale. Earlier bodies stay readable ' +
    '(`list_message_versions`). Members the new body newly mentions are notified. Event `message_edited`.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: MessageParams,
  body: EditMessageBody,
  bodyRequired: true,
  success: { status: 200, description: 'The message, as edited.', schema: MessageRef },
  errors: [401, 403, 404, 409, 429, 503],
  handler: async ({ params, body, actor, ctx }) => {
    const prepared = await messages.prepareMessage(ctx, actor, params.slug, body.body);
    return ctx.db.transaction((tx) => edits.editMessage(tx, actor, params.slug, params.id, prepared, body.expected_version));
  },
});

export const listMessageVersions = defineOperation({
  name: 'list_message_versions',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/messages/{id}/versions',
  tag: TAG,
  summary: "Read a message's versions",
  description: 'Every body the message has had, oldest first; the last is current. Read access as for the message.',
  auth: { anonymous: true, schemes: [...MEMBER_CREDENTIALS, 'steward_key'] },
  params: MessageParams,
  success: { status: 200, description: 'The versions.', schema: Type.Ref('MessageVersionList') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    return { message_id: params.id, versions: await edits.listVersions(ctx.db.kysely, actor, space, params.id), protocol: PROTOCOL };
  },
});

export const deleteMessage = defineOperation({
  name: 'delete_message',
  who: 'space_members',
  method: 'DELETE',
  path: '/v0/spaces/{slug}/messages/{id}',
  tag: TAG,
  summary: 'Delete a message',
  description:
    'Its author, an Owner/Host of the Space, or the steward key (then `deleted_by` is null and the event\'s `via` is `steward_key`); 403 `not_message_author` otherwise. It stays as a tombstone in its place ' +
    '(`deleted_ts`, `deleted_by`, empty body); its body, versions and mentions are redacted, also from its earlier events. ' +
    'Deleting again is 409 `message_deleted`. Event `message_deleted`.',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: MessageParams,
  success: { status: 200, description: 'The tombstone.', schema: MessageRef },
  errors: [401, 403, 404, 409],
  destructive: true,
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => deletion.deleteMessage(tx, actor, params.slug, params.id)),
});

export const messageOperations = [
  postMessage,
  listMessages,
  sendDirectMessage,
  listConversations,
  listDirectMessages,
  readThread,
  editMessage,
  listMessageVersions,
  deleteMessage,
];
export const messageSchemas = [MessageSchema, MessageListSchema, ConversationListSchema, ThreadSchema, MessageVersionListSchema];

