import { Type, type Static } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { Reactions } from '../reactions/schemas.js';
import { Handle, PageLimit, Timestamp } from '../shared/schemas.js';

/** protocol: Messages. A Markdown body of 1-20000 characters. */
export const MAX_MESSAGE_BODY = 20000;
export const DEFAULT_MESSAGE_LIMIT = 50;
export const MAX_MESSAGE_LIMIT = 200;

const MessageId = (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

/** Threads (docs/messages.md, "Threads"): kept apart from the other fields of a message. */
const THREAD_FIELDS = {
  thread_root: Type.Union([Type.Integer(), Type.Null()], { description: "A reply's thread: its top-level message. Null at top level." }),
  reply_count: Type.Optional(Type.Integer({ minimum: 0, description: 'Top level only: replies in its thread.' })),
  last_reply_ts: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: 'Top level only: when the newest reply was posted.' })),
};

/** Edits and deletion (docs/messages.md): kept apart from the other fields of a message. */
const LIFECYCLE_FIELDS = {
  version: Type.Integer({ minimum: 1, description: '1 as posted; one more per edit.' }),
  edited_ts: Type.Union([Timestamp, Type.Null()], { description: 'When it was last edited; null if never.' }),
  deleted_ts: Type.Union([Timestamp, Type.Null()], { description: 'When it was deleted (its body is then empty); null if not.' }),
  deleted_by: Type.Union([Type.String(), Type.Null()], { description: 'Who deleted it: its author or an Owner/Host; null when the steward key did.' }),
};

export const MessageSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Host-wide message id.' }),
    space: Type.String(),
    channel: Type.Union([Type.String(), Type.Null()], { description: 'The channel; null for direct and task messages.' }),
    task: Type.Union([Type.Integer(), Type.Null()], { description: 'The task whose discussion holds it; null otherwise.' }),
    author: Type.String(),
    body: UntrustedText({ maxLength: MAX_MESSAGE_BODY, description: 'Markdown, verbatim; empty once deleted.' }),
    mentioned_members: Type.Array(Type.String(), {
      description: 'Active members the body mentions, resolved when it was posted; for a direct message, the other participant.',
    }),
    direct_members: Type.Optional(
      Type.Array(Type.String(), { minItems: 2, maxItems: 2, description: 'Direct messages only: the two participants, sorted.' }),
    ),
    created_ts: Timestamp,
    ...THREAD_FIELDS,
    ...LIFECYCLE_FIELDS,
    reactions: Reactions,
  },
  { $id: 'Message', additionalProperties: false },
);

export const MessageListSchema = Type.Object(
  {
    messages: Type.Array(Type.Ref('Message'), { description: 'Newest first.' }),
    protocol: Type.String(),
  },
  { $id: 'MessageList', additionalProperties: false },
);

/** One direct conversation: the other member, and its newest message. */
export const ConversationSchema = Type.Object(
  {
    with: Type.String({ description: 'The other member of the conversation.' }),
    last_message: Type.Ref('Message'),
  },
  { additionalProperties: false },
);

export const ConversationListSchema = Type.Object(
  {
    conversations: Type.Array(ConversationSchema, { description: 'The most recently active first.' }),
    protocol: Type.String(),
  },
  { $id: 'ConversationList', additionalProperties: false },
);

/** `GET …/direct-messages`: `before` is the newest message id of the previous page's last conversation. */
export const ConversationListQuery = Type.Object(
  {
    before: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "Only conversations whose newest message is older (exclusive): the previous page's last `last_message.id`.",
      }),
    ),
    limit: Type.Optional(PageLimit(DEFAULT_MESSAGE_LIMIT, MAX_MESSAGE_LIMIT)),
  },
  { additionalProperties: false },
);
export type ConversationPage = Static<typeof ConversationListQuery>;

/** `$ref`s for operations that return messages (task discussions reuse them). */
export const MessageRef = Type.Ref('Message');
export const MessageListRef = Type.Ref('MessageList');

export const MessageBodyText = Type.String({ minLength: 1, maxLength: MAX_MESSAGE_BODY, description: 'Markdown, 1-20000 characters.' });

const ThreadRootField = Type.Optional(MessageId('Reply in the thread of this top-level message of the same conversation.'));

/** `POST …/messages`: `{body, thread_root?}`. */
export const PostMessageBody = Type.Object({ body: MessageBodyText, thread_root: ThreadRootField }, { additionalProperties: false });

export const DirectMessageBody = Type.Object(
  { to: Handle, body: MessageBodyText, thread_root: ThreadRootField },
  { additionalProperties: false },
);

/** `GET …/messages`: newest first; `before` is an exclusive message id. */
export const MessageListQuery = Type.Object(
  {
    before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Only messages with a lower id (exclusive): the last id of the previous page.' })),
    limit: Type.Optional(PageLimit(DEFAULT_MESSAGE_LIMIT, MAX_MESSAGE_LIMIT)),
    thread_root: Type.Optional(MessageId('List this thread (its root and replies) instead of the top-level messages.')),
  },
  { additionalProperties: false },
);
export type MessagePage = Static<typeof MessageListQuery>;

/** `GET …/messages/{id}/thread`: a thread's root, and one page of its replies. */
export const ThreadSchema = Type.Object(
  {
    root: Type.Ref('Message'),
    replies: Type.Array(Type.Ref('Message'), { description: 'Newest first.' }),
    protocol: Type.String(),
  },
  { $id: 'Thread', additionalProperties: false },
);

/** Paging of a thread's replies. */
export const ThreadQuery = Type.Object(
  {
    before: MessageListQuery.properties.before,
    limit: MessageListQuery.properties.limit,
  },
  { additionalProperties: false },
);

/** `PATCH …/messages/{id}`: the new body, and the version it replaces. */
export const EditMessageBody = Type.Object(
  {
    body: MessageBodyText,
    expected_version: Type.Integer({ minimum: 1, description: 'The version you edited (409 if it is no longer current).' }),
  },
  { additionalProperties: false },
);

/** One version of a message's body. */
export const MessageVersionSchema = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    body: UntrustedText({ description: 'Markdown, verbatim.' }),
    mentioned_members: Type.Array(Type.String()),
    created_ts: Timestamp,
  },
  { additionalProperties: false },
);

export const MessageVersionListSchema = Type.Object(
  {
    message_id: Type.Integer({ minimum: 1 }),
    versions: Type.Array(MessageVersionSchema, { description: 'Oldest first; the last is current.' }),
    protocol: Type.String(),
  },
  { $id: 'MessageVersionList', additionalProperties: false },
);
export type MessageVersion = Static<typeof MessageVersionSchema>;
