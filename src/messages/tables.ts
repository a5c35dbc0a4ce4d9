import type { Generated } from 'kysely';

/**
 * One message, posted to exactly one target: a channel, a direct conversation
 * (two members, sorted), or a task's discussion (docs/messages.md).
 */
export interface MessageTable {
  /** Host-wide integer id. */
  id: Generated<number>;
  space: string;
  channel: string | null;
  task_id: number | null;
  direct_member_a: string | null;
  direct_member_b: string | null;
  author: string;
  /** Markdown, stored verbatim; '' once deleted. */
  body: string;
  /** JSON array of handles resolved when the message was posted (never reparsed). */
  mentioned_members: string;
  created_ts: string;
  /** Threads (docs/messages.md, "Threads"): the top-level message a reply answers; null at top level. */
  thread_root: number | null;
  /** On a top-level message: its replies, and when the newest was posted (kept in each reply's transaction). */
  reply_count: Generated<number>;
  last_reply_ts: string | null;
  /** Edits (docs/messages.md, "Edits"): 1 as posted, one more per edit. */
  version: Generated<number>;
  edited_ts: string | null;
  /** Deletion (docs/messages.md, "Deletion"): set on a tombstone, whose body is '' and mentions []. */
  deleted_ts: string | null;
  deleted_by: string | null;
}

/** A body an edit replaced: the current one stays in `messages`, so each is stored once. */
export interface MessageVersionTable {
  message_id: number;
  version: number;
  body: string;
  /** JSON array of handles that version mentioned. */
  mentioned_members: string;
  /** When that version was written (posted, or edited to). */
  created_ts: string;
}

export interface MessagesTables {
  messages: MessageTable;
  message_versions: MessageVersionTable;
}
