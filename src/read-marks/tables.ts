/**
 * How far a member has read one conversation of a Space (docs/messages.md,
 * "Read marks"): a message id that only moves forward.
 */
export interface ReadMarkTable {
  member_handle: string;
  space: string;
  /** `channel:<name>` or `direct:<other member's handle>`, as event subjects name a channel. */
  conversation: string;
  message_id: number;
  updated_ts: string;
}

export interface ReadMarksTables {
  read_marks: ReadMarkTable;
}
