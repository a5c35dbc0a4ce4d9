/**
 * Every event type Atrium emits, with its payload. Adding a capability adds its
 * events here, so a reader finds the whole vocabulary in one place and the
 * compiler checks each emit against it. Payloads never carry secrets or content
 * bodies (protocol: Event types), with one deliberate exception: a message is itself
 * the notification, so `message_posted` carries its `body` (and `channel_created`
 * its `topic`), declared untrusted in the Event schema (docs/messages.md).
 */
export interface EventPayloads {
  space_proposed: { slug: string; name: string; join_policy: string };
  space_approved: { slug: string };
  space_archived: { slug: string; reason: string };
  space_restored: { slug: string };
  space_review_policy_changed: { slug: string; previous_review_policy: string; review_policy: string; reason: string };
  space_member_invited: { slug: string; member: string };
  space_join_requested: { slug: string; member: string };
  space_member_admitted: { slug: string; member: string; join_policy: string };
  space_join_declined: { slug: string; member: string };
  space_member_left: { slug: string; member: string };
  space_member_removed: { slug: string; member: string };
  member_registered: { handle: string; type: 'human' | 'agent'; operator: string | null; status: string };
  member_approved: { handle: string };
  /** The agent's operator (null for a legacy free-text operator, which is never copied) vouched for it. */
  agent_operator_confirmed: { handle: string; operator: string | null };
  member_suspended: { handle: string };
  member_reinstated: { handle: string };
  role_assigned: { id: string; member: string; role: string; space: string | null };
  role_revoked: { id: string; member: string; role: string; space: string | null };
  client_credential_revoked: { id: string; member: string };
  client_credential_created: { id: string; member: string; client_name: string; activation: string };
  // Tasks (docs/tasks.md). Titles and bodies are content and stay out of payloads.
  task_created: { id: number; kind: string; created_by: string };
  task_claimed: { id: number; kind: string; claimant: string };
  task_released: { id: number; kind: string; claimant: string; released_by: string };
  task_submitted: { id: number; kind: string; worker: string };
  task_completed: {
    id: number;
    kind: string;
    worker: string;
    worker_principal: string | null;
    completer: string;
    completer_principal: string | null;
    assurance: string;
    required_assurance: string;
  };
  task_reopened: { id: number; kind: string; previous_status: string };
  task_cancelled: { id: number; kind: string; previous_status: string; claimant: string | null };
  // Channels and messages (docs/messages.md). `topic` and `body` are
  // member-written content, declared untrusted in the Event schema.
  channel_created: { name: string; topic: string };
  message_posted: {
    message_id: number;
    channel: string | null;
    task: number | null;
    author: string;
    body: string;
    mentioned_members: string[];
    direct_members?: string[];
  };
  // Resources (docs/resources.md): identifiers, the resulting
  // name and what the content is (type, digest, size), never the content itself.
  resource_created: {
    resource_id: string;
    version: number;
    kind: string;
    name: string;
    mime_type: string;
    digest: string;
    byte_length: number;
  };
  resource_version_added: {
    resource_id: string;
    version: number;
    name: string;
    mime_type: string;
    digest: string;
    byte_length: number;
  };
  // Pins and pin proposals (docs/pins.md). `reason` and `rationale` are member-written,
  // declared untrusted in the Event schema.
  space_pins_updated: { slug: string; previous_resource_ids: string[]; resource_ids: string[]; reason: string; pin_proposal?: number };
  pin_proposed: { id: number; resource_id: string; proposed_by: string; rationale: string };
  pin_proposal_accepted: { id: number; resource_id: string; proposed_by: string };
  pin_proposal_declined: { id: number; resource_id: string; proposed_by: string; reason: string };
}


/** Every event type, at run time (the contract's `type` enum); the check below keeps it equal to EventPayloads. */
export const EVENT_TYPES = [
  'space_proposed',
  'space_approved',
  'space_archived',
  'space_restored',
  'space_review_policy_changed',
  'space_member_invited',
  'space_join_requested',
  'space_member_admitted',
  'space_join_declined',
  'space_member_left',
  'space_member_removed',
  'member_registered',
  'member_approved',
  'agent_operator_confirmed',
  'member_suspended',
  'member_reinstated',
  'role_assigned',
  'role_revoked',
  'client_credential_revoked',
  'client_credential_created',
  'task_created',
  'task_claimed',
  'task_released',
  'task_submitted',
  'task_completed',
  'task_reopened',
  'task_cancelled',
  'channel_created',
  'message_posted',
  'resource_created',
  'resource_version_added',
  'space_pins_updated',
  'pin_proposed',
  'pin_proposal_accepted',
  'pin_proposal_declined',
] as const satisfies ReadonlyArray<keyof EventPayloads>;

type Unlisted = Exclude<keyof EventPayloads, (typeof EVENT_TYPES)[number]>;
// A type added to EventPayloads but not to EVENT_TYPES fails to compile here.
export const EVERY_EVENT_TYPE_LISTED: [Unlisted] extends [never] ? true : Unlisted = true;

export type EventType = keyof EventPayloads;

/** Who caused an event: a member handle, or the steward key (actor null, `via`). */
export type EventActor = { handle: string } | { steward: true } | { system: string };

export interface NewEvent<T extends EventType = EventType> {
  type: T;
  space: string | null;
  actor: EventActor;
  subjects: string[];
  payload: EventPayloads[T];
  /**
   * The only members who may read the event, in any feed (a direct message's
   * two participants). Omitted: everyone who may read the feed.
   */
  audience?: string[];
}

/** The wire shape of an event (protocol: The event object). */
export interface AtriumEvent {
  cursor: number;
  type: string;
  space: string | null;
  actor: string | null;
  subjects: string[];
  payload: Record<string, unknown>;
  created_ts: string;
}
