import type { Generated } from 'kysely';

/**
 * One member's reaction to one message with one emoji (docs/messages.md,
 * "Reactions"). The unique key is the rule: one per member per emoji.
 */
export interface MessageReactionTable {
  /** Orders reactors and emoji by when they came, identically on both databases. */
  id: Generated<number>;
  message_id: number;
  emoji: string;
  member_handle: string;
  created_ts: string;
}

export interface ReactionsTables {
  message_reactions: MessageReactionTable;
}
