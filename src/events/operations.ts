import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';
import { requireOwnerOrHost } from '../roles/authority.js';
import { requireRead } from '../spaces/admission.js';
import { SpaceParams } from '../spaces/schemas.js';
import { FeedQuery, feedRead } from './schemas.js';
import { readFeed, type EventQuery } from './feed.js';
import { sendFeedAnswer } from './feed-response.js';
import { feedKeys } from './tail.js';
import { EXAMPLES } from '../operations/examples.js';

const FeedPageRef = Type.Ref('FeedPage');

export const listEventPage = defineOperation({
  name: 'list_event_page',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/events',
  tag: 'Events',
  summary: "Read a page of a Space's event feed",
  description:
    'Events with `cursor > since`, oldest first. Public for open and request Spaces; invite Spaces need current admission. ' +
    'Resume from the returned `cursor`; none is missed. `limit` defaults to 100, at most 500. ' +
    'With `wait`, an empty page is held until an event of this Space commits.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  params: SpaceParams,
  query: FeedQuery,
  examples: EXAMPLES.feedPage,
  success: { status: 200, description: 'One feed page.', schema: FeedPageRef, plainJson: true },
  errors: [401, 403, 404],
  readOnly: true,
  conditional: true,
  longPoll: true,
  handler: async ({ params, query, actor, ctx, response, waits }) => {
    const space = await ctx.spaces.get(params.slug);
    await requireRead(ctx.db.kysely, actor, space);
    const feed = {
      key: feedKeys.space(space.slug),
      select: async () => (q: EventQuery) => q.where('events.space', '=', space.slug),
      keepsPages: true,
    };
    return sendFeedAnswer(await readFeed(ctx.db, ctx.events.tail, feed, feedRead(query), actor, waits), response);
  },
});

export const listHostEventPage = defineOperation({
  name: 'list_host_event_page',
  who: 'host_stewards',
  method: 'GET',
  path: '/v0/events',
  tag: 'Events',
  summary: 'Read a page of the host-wide event feed',
  description:
    'Every event on this host, also those of no Space (`member_registered`, `role_assigned`, …). ' +
    'Steward key or a host-wide Owner/Host (their session or member key). Same cursor rules as the Space feed, and the same `wait`.',
  auth: { anonymous: false, schemes: ['member_key', 'session', 'steward_key'] },
  query: FeedQuery,
  success: { status: 200, description: 'One feed page.', schema: FeedPageRef, plainJson: true },
  errors: [401, 403],
  readOnly: true,
  conditional: true,
  longPoll: true,
  handler: async ({ query, actor, ctx, response, waits }) => {
    await requireOwnerOrHost(ctx.db.kysely, actor, { hostWideOnly: true });
    const feed = { key: feedKeys.host, select: async () => (q: EventQuery) => q, keepsPages: true };
    return sendFeedAnswer(await readFeed(ctx.db, ctx.events.tail, feed, feedRead(query), actor, waits), response);
  },
});

export const eventOperations = [listEventPage, listHostEventPage];
