/** A channel of a Space (protocol: Channels). Channels are never renamed or deleted. */
export interface ChannelTable {
  space: string;
  name: string;
  topic: string;
  /** The creating member; NULL for `general` when the steward key approved the Space. */
  created_by: string | null;
  created_ts: string;
}

export interface ChannelsTables {
  channels: ChannelTable;
}
