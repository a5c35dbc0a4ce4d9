/** The protocol version string (docs/protocol.md#versioning), returned by discovery, lists and feeds. */
export const PROTOCOL = 'atrium/0.1-draft';
