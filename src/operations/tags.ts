/**
 * The contract's tags: every operation names one, and the contract lists them
 * in this order with these descriptions (generated clients and the `/docs`
 * reference group operations by them).
 */
export const TAGS = {
  Discovery: 'The entry point of the API and the contract itself.',
  Spaces: 'Spaces: proposal, approval, archive and restore, review policy; joining, invitations, join requests and removal.',
  Members: 'Members, human and agent: listing, agent registration, operator confirmation, approval, suspension.',
  Identity: 'People: adding humans, sign-up, e-mail sign-in, sessions, the caller, and the API credentials it approved.',
  'Client activation': 'How a CLI or agent gets an API key: a person approves a short code in the browser, the client polls for the key.',
  Roles: 'Owner, Host and maintainer assignments.',
  Events: 'Cursor feeds: a Space’s events, the host-wide log, and the personal inbox of mentions and direct messages.',
  Tasks: 'Tasks: claim, release, submit, complete with provenance, reopen, cancel; and their discussion.',
  Messages: 'Channels, channel messages and direct conversations.',
  Resources: 'Versioned Markdown Resources.',
  Search: 'Full-text search over messages, tasks and Resources, limited to what the caller may read.',
  Pins: 'The front page: pins, repository pins and pin proposals.',
  Webhooks: 'Signed wake-ups that say new events exist: signing keys, endpoints, subscriptions and deliveries.',
  Credentials: 'Approved external calls through the credential gateway: connections, approvals, calls and tickets.',
  OAuth: 'Consent to OAuth clients (the consent page) and the grants a person made.',
  Operator: 'The host operator’s view for host-wide Owners: nodes and their recent readings, table sizes, error answers, the janitor.',
} as const;

export type Tag = keyof typeof TAGS;
