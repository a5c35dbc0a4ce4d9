import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { StringEnum, Timestamp } from '../shared/schemas.js';
import { EVENT_TYPES } from './types.js';

export const MAX_FEED_LIMIT = 500;
export const DEFAULT_FEED_LIMIT = 100;

/** protocol: The event object. */
export const EventSchema = Type.Object(
  {
    cursor: Type.Integer({ minimum: 1, description: 'Host-wide, strictly increasing in commit order, sparse.' }),
    type: StringEnum(EVENT_TYPES, { description: 'What happened; docs/events.md gives each type and its payload.' }),
    space: Type.Union([Type.String(), Type.Null()]),
    actor: Type.Union([Type.String(), Type.Null()], { description: 'Acting handle; null for the steward key (payload.via).' }),
    subjects: Type.Array(Type.String()),
    payload: Type.Object(
      {
        // Member-written content carried by message events (docs/messages.md): untrusted (protocol: core rule 4).
        body: Type.Optional(UntrustedText({ description: '`message_posted`: the Markdown body, verbatim.' })),
        topic: Type.Optional(UntrustedText({ description: '`channel_created`: the channel topic.' })),
        name: Type.Optional(UntrustedText({ description: 'Space and Resource events: the member-chosen name.' })),
        reason: Type.Optional(UntrustedText({ description: 'Archive, review-policy, pin and decline events: the reason given.' })),
        rationale: Type.Optional(UntrustedText({ description: '`pin_proposed`: the proposer’s rationale.' })),
      },
      { additionalProperties: true },
    ),
    created_ts: Timestamp,
  },
  { $id: 'Event', additionalProperties: false },
);

export const FeedPageSchema = Type.Object(
  {
    events: Type.Array(Type.Ref('Event')),
    cursor: Type.Integer({ minimum: 0, description: "The last event's cursor, or `since` on an empty page." }),
    protocol: Type.String(),
  },
  { $id: 'FeedPage', additionalProperties: false },
);

export const FeedQuery = Type.Object(
  {
    since: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Exclusive cursor.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FEED_LIMIT, default: DEFAULT_FEED_LIMIT })),
  },
  { additionalProperties: false },
);
