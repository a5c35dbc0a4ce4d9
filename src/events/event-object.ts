import { Type } from '@sinclair/typebox';
import { Handle, StringEnum, Timestamp } from '../shared/schemas.js';
import { SpaceSlug } from '../spaces/schemas.js';
import { EVENT_TYPES } from './payloads.js';

/**
 * The event object (docs/protocol.md#the-event-object) of any type, and the
 * feed page that carries it: the one declaration of their fields. The wire
 * types (`AtriumEvent`, `FeedPage` in types.ts) are these schemas' static
 * types; the contract's per-type event schemas and its `FeedPage` take their
 * fields from here (schemas.ts), narrowing `type` and `payload` per type and
 * naming `Event` where this page inlines it.
 */

const EventCursor = Type.Integer({ minimum: 1, description: 'Host-wide, strictly increasing in commit order, sparse.' });

export const EventObjectSchema = Type.Object(
  {
    cursor: EventCursor,
    type: StringEnum(EVENT_TYPES),
    space: Type.Union([SpaceSlug, Type.Null()], { description: 'The Space the event belongs to; null for host-wide events.' }),
    actor: Type.Union([Handle, Type.Null()], { description: 'Acting handle; null when the steward key or the system acted (see `payload.via`).' }),
    subjects: Type.Array(Type.String(), {
      description: 'What the event concerns: `space:<slug>`, `member:<handle>`, `member:mentioned:<handle>`, `resource:<id>`, `task:<id>`, `channel:<name>`.',
    }),
    payload: Type.Record(Type.String(), Type.Unknown()),
    created_ts: Timestamp,
  },
  { additionalProperties: false },
);

export const FeedPageObjectSchema = Type.Object(
  {
    events: Type.Array(EventObjectSchema),
    cursor: Type.Integer({ minimum: 0, description: "The last event's cursor, or `since` on an empty page." }),
    protocol: Type.String(),
  },
  { additionalProperties: false },
);
