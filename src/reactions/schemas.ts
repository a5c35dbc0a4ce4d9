import { Type, type Static } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { Handle } from '../shared/schemas.js';

/**
 * At most this many distinct emoji on one message. Past it a new emoji is
 * refused (409) and existing ones can still be added to: a message is read by
 * everyone in its conversation, and a wall of emoji would bury it and cost every
 * listing that shows it.
 */
export const MAX_DISTINCT_REACTIONS = 50;

/** A message view names this many of each emoji's reactors, the earliest first; `count` says how many there are. */
export const REACTION_MEMBERS_SHOWN = 20;

export const ReactionSchema = Type.Object(
  {
    emoji: UntrustedText({ description: 'One fully-qualified Unicode emoji.' }),
    count: Type.Integer({ minimum: 1, description: 'Members who reacted with it.' }),
    members: Type.Array(Handle, { maxItems: REACTION_MEMBERS_SHOWN, description: 'The first 20 of them, earliest first.' }),
  },
  { additionalProperties: false },
);

export type Reaction = Static<typeof ReactionSchema>;

export const Reactions = Type.Array(ReactionSchema, {
  description: 'Reactions, by the time each emoji was first used.',
});
