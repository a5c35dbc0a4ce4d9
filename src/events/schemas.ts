import { Type } from '@sinclair/typebox';
import { invalid } from '../shared/errors.js';
import { PageLimit, StringEnum } from '../shared/schemas.js';
import { EventObjectSchema, FeedPageObjectSchema } from './event-object.js';
import { EVENT_MEANINGS, EVENT_TYPES, payloadSchema, type EventPayloads, type EventVia } from './payloads.js';
import type { AtriumEvent, EventType } from './types.js';

export const MAX_FEED_LIMIT = 500;
/** Longest long poll, in seconds: under common proxies' idle timeouts, and bounds what a waiting reader holds. */
export const MAX_FEED_WAIT = 30;
export const DEFAULT_FEED_LIMIT = 100;

/** `space_proposed` → `SpaceProposedEvent`: the contract's name for one event type's schema. */
export function eventSchemaName(type: EventType): string {
  return `${type.replace(/(^|_)([a-z])/g, (_m, _sep: string, letter: string) => letter.toUpperCase())}Event`;
}

/**
 * One schema per event type: the event object (docs/protocol.md#events) with
 * `type` fixed and the payload's own fields, so a generated client narrows an
 * event's payload by its `type`. Overriding in place keeps the object's field
 * order, which the contract shows.
 */
export const eventVariantSchemas = EVENT_TYPES.map((type) =>
  Type.Object(
    {
      ...EventObjectSchema.properties,
      // A one-value enum rather than `const`: the contract renders either as this, and MCP reads the same.
      type: StringEnum([type]),
      payload: payloadSchema(type),
    },
    { $id: eventSchemaName(type), title: type, description: EVENT_MEANINGS[type], additionalProperties: false },
  ),
);

type AnyEvent = { [T in EventType]: Omit<AtriumEvent, 'type' | 'payload'> & { type: T; payload: EventPayloads[T] & { via?: EventVia } } }[EventType];

/**
 * An event of any type: exactly one of the per-type schemas, told apart by
 * `type` (OpenAPI's discriminator, so generated clients narrow on it).
 */
export const EventSchema = Type.Unsafe<AnyEvent>({
  $id: 'Event',
  description: 'One event (docs/protocol.md#events). `type` says which of the per-type schemas it is.',
  oneOf: EVENT_TYPES.map((type) => Type.Ref(eventSchemaName(type))),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventSchemaName(type)}`])),
  },
});

/** The contract's feed page: the page's fields, its events named as `Event` so clients see the per-type union. */
export const FeedPageSchema = Type.Object(
  { ...FeedPageObjectSchema.properties, events: Type.Array(Type.Ref('Event')) },
  { $id: 'FeedPage', additionalProperties: false },
);

export const FeedQuery = Type.Object(
  {
    since: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        default: 0,
        description:
          'Exclusive cursor: only events after it; 0 (the default) reads from the beginning. Pass the `cursor` of the page you were handed. ' +
          'A cursor beyond the newest event on this host was never handed out here and is a 422.',
      }),
    ),
    limit: Type.Optional(PageLimit(DEFAULT_FEED_LIMIT, MAX_FEED_LIMIT)),
    newest: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_FEED_LIMIT,
        description:
          'Instead of the events after `since`: the newest this many events of the feed, oldest first, as of the newest event on this host; ' +
          "`cursor` is then that newest event's, so a client shows recent history and follows on from there without reading the feed from its start. " +
          'Not with `since` or `wait` (422).',
      }),
    ),
    before: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'With `newest` only (else 422): the newest events below this cursor instead, to read further back page by page; ' +
          "pass the first event's cursor of the oldest page you hold. `cursor` stays the newest event's on this host.",
      }),
    ),
    wait: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FEED_WAIT,
        default: 0,
        description:
          `Long poll: when the page would be empty, wait up to this many seconds (at most ${MAX_FEED_WAIT}) for an event of this feed, ` +
          'and answer as soon as one commits, on any node of the host. The page is then read as usual. 0 (the default) answers at once, ' +
          'as does a poll beyond the caller\'s share of long polls, with `Retry-After`.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A feed query's values with their defaults. */
export function feedRead(query: { since?: number; limit?: number; wait?: number; newest?: number; before?: number }): {
  since: number;
  limit: number;
  wait: number;
  newest?: number;
  before?: number;
} {
  if (query.newest !== undefined && ((query.since ?? 0) !== 0 || (query.wait ?? 0) !== 0)) {
    throw invalid('validation_failed', 'newest: reads the newest events as of now; it does not combine with since or wait');
  }
  if (query.before !== undefined && query.newest === undefined) {
    throw invalid('validation_failed', 'before: reads the newest events below a cursor, so it needs newest; to read forward from a cursor, use since');
  }
  return {
    since: query.since ?? 0,
    limit: query.limit ?? DEFAULT_FEED_LIMIT,
    wait: query.wait ?? 0,
    ...(query.newest !== undefined ? { newest: query.newest } : {}),
    ...(query.before !== undefined ? { before: query.before } : {}),
  };
}
