export interface InboxReadTable {
  member_handle: string;
  cursor: number;
  updated_ts: string;
}

export interface InboxTables {
  inbox_reads: InboxReadTable;
}
