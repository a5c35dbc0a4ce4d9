import { Type } from '@sinclair/typebox';
import { FeedQuery, feedRead } from '../events/schemas.js';
import { defineOperation } from '../operations/operation.js';
import { readInbox } from './service.js';
import { sendFeedAnswer } from '../events/feed.js';

export const listInboxEvents = defineOperation({
  name: 'list_inbox_events',
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
  success: { status: 200, description: 'One inbox page.', schema: Type.Ref('FeedPage'), plainJson: true },
  errors: [401, 403],
  readOnly: true,
  conditional: true,
  handler: async ({ query, actor, ctx, ifNoneMatch, response }) =>
    sendFeedAnswer(await readInbox(ctx.db.kysely, ctx.events.tail, actor, feedRead(query)), ifNoneMatch, response),
});

export const inboxOperations = [listInboxEvents];
