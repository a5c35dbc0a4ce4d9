/** The protocol version string (decisions §1), returned by discovery, lists and feeds. */
export const PROTOCOL = 'atrium/0.1-draft';
