import { Type } from '@sinclair/typebox';
import { FeedQuery, feedRead } from '../events/schemas.js';
import { defineOperation } from '../operations/operation.js';
import { requireActiveMember } from '../roles/authority.js';
import { Timestamp } from '../shared/schemas.js';
import { markRead, readState, requireHandedOut } from './read-state.js';
import { readInbox } from './service.js';
import { sendFeedAnswer } from '../events/feed-response.js';
import { EXAMPLES } from '../operations/examples.js';

export const listInboxEvents = defineOperation({
  name: 'list_inbox_events',
  who: 'members',
  beyondSpaces: 'filtered',
  method: 'GET',
  path: '/v0/me/inbox-events',
  tag: 'Events',
  summary: 'Read a page of your inbox: direct messages to you and mentions of you',
  description:
    'Events naming the caller in `member:mentioned:<handle>` (mentions and direct messages to the caller), oldest first, ' +
    "limited to Spaces the caller may read now. Always the caller's own inbox: an operator's key never reads its agents'. " +
    'Same cursor rules as the Space feed: resume from the returned `cursor`; an empty page keeps `since`. ' +
    '`limit` defaults to 100, at most 500. With `wait`, an empty page is held until a mention of the caller or a direct message to them commits (a long poll).',
  auth: { anonymous: false, schemes: ['member_key', 'session'] },
  query: FeedQuery,
  examples: EXAMPLES.inboxPage,
  success: { status: 200, description: 'One inbox page.', schema: Type.Ref('FeedPage'), plainJson: true },
  errors: [401, 403],
  readOnly: true,
  conditional: true,
  longPoll: true,
  handler: async ({ query, actor, ctx, response, waits }) =>
    sendFeedAnswer(await readInbox(ctx.db, ctx.events.tail, actor, feedRead(query), waits), response),
});

const InboxReadSchema = Type.Object(
  {
    cursor: Type.Integer({ minimum: 0, description: 'Read up to and including this inbox cursor; 0 until first marked.' }),
    updated_ts: Type.Union([Timestamp, Type.Null()], { description: 'When the mark last moved; null until first marked.' }),
  },
  { additionalProperties: false },
);

const READ_STATE_NOTE = "Always the caller's own: an operator's key never reads or moves its agents' mark.";

export const getInboxReadState = defineOperation({
  name: 'get_inbox_read_state',
  who: 'members',
  beyondSpaces: 'filtered',
  method: 'GET',
  path: '/v0/me/inbox-read',
  tag: 'Events',
  summary: 'Read how far you have read your inbox',
  description:
    'The inbox cursor the caller last marked as read (`POST /v0/me/inbox-read`), kept by the host so every client and device agrees ' +
    'on what is unread: the inbox events with a higher cursor. ' + READ_STATE_NOTE,
  auth: { anonymous: false, schemes: ['member_key', 'session'] },
  success: { status: 200, description: 'The read mark.', schema: InboxReadSchema },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => readState(ctx.db.kysely, requireActiveMember(actor).member.handle),
});

export const markInboxRead = defineOperation({
  name: 'mark_inbox_read',
  who: 'members',
  method: 'POST',
  path: '/v0/me/inbox-read',
  tag: 'Events',
  summary: 'Mark your inbox read up to a cursor',
  description:
    'Moves the caller\'s read mark to `cursor` (an inbox page\'s `cursor`), never back: a lower one leaves it where it is, so devices ' +
    'marking at once never make read items unread again. A cursor beyond the newest event on the host is a 422. No event is appended: ' +
    'what a member has read is theirs alone. ' + READ_STATE_NOTE,
  auth: { anonymous: false, schemes: ['member_key', 'session'] },
  body: Type.Object(
    { cursor: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The inbox cursor read up to.' }) },
    { additionalProperties: false },
  ),
  bodyRequired: true,
  success: { status: 200, description: 'The read mark, as it now stands.', schema: InboxReadSchema },
  errors: [401, 403],
  idempotent: true,
  handler: async ({ body, actor, ctx }) => {
    const member = requireActiveMember(actor).member.handle;
    await requireHandedOut(ctx.events.tail, body.cursor);
    return ctx.db.transaction((tx) => markRead(tx, member, body.cursor));
  },
});

export const inboxOperations = [listInboxEvents, getInboxReadState, markInboxRead];
