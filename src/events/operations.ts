import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';
import { requireOwnerOrHost } from '../roles/authority.js';
import { requireRead } from '../spaces/admission.js';
import { SpaceParams } from '../spaces/schemas.js';
import { getSpace } from '../spaces/service.js';
import { DEFAULT_FEED_LIMIT, FeedQuery } from './schemas.js';
import { readFeed } from './feed.js';

const FeedPageRef = Type.Ref('FeedPage');

export const listEventPage = defineOperation({
  name: 'list_event_page',
  method: 'GET',
  path: '/v0/spaces/{slug}/events',
  tag: 'Events',
  summary: "Read a page of a Space's event feed",
  description:
    'Events with `cursor > since`, oldest first. Public for open and request Spaces; invite Spaces need current admission. ' +
    'Resume from the returned `cursor`: no event is ever missed. `limit` defaults to 100, at most 500.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  params: SpaceParams,
  query: FeedQuery,
  success: { status: 200, description: 'One feed page.', schema: FeedPageRef, plainJson: true },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => {
    const space = await getSpace(ctx.db.kysely, params.slug);
    await requireRead(ctx.db.kysely, actor, space);
    return readFeed(
      ctx.db.kysely,
      (q) => q.where('events.space', '=', space.slug),
      query.since ?? 0,
      query.limit ?? DEFAULT_FEED_LIMIT,
      actor,
    );
  },
});

export const listHostEventPage = defineOperation({
  name: 'list_host_event_page',
  method: 'GET',
  path: '/v0/events',
  tag: 'Events',
  summary: 'Read a page of the host-wide event feed',
  description:
    'Every event on this host, including those that belong to no Space (`member_registered`, `role_assigned`, …). ' +
    'Steward key or a host-wide Owner/Host (their session or member key). Same cursor rules as the Space feed.',
  auth: { anonymous: false, schemes: ['member_key', 'session', 'steward_key'] },
  query: FeedQuery,
  success: { status: 200, description: 'One feed page.', schema: FeedPageRef, plainJson: true },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ query, actor, ctx }) => {
    await requireOwnerOrHost(ctx.db.kysely, actor, { hostWideOnly: true });
    return readFeed(ctx.db.kysely, (q) => q, query.since ?? 0, query.limit ?? DEFAULT_FEED_LIMIT, actor);
  },
});

export const eventOperations = [listEventPage, listHostEventPage];
