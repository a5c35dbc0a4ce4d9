/**
 * Every event type Atrium emits, with its payload. Adding a capability adds its
 * events here, so a reader finds the whole vocabulary in one place and the
 * compiler checks each emit against it. Payloads never carry secrets or content
 * bodies (reference: Events).
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
  member_suspended: { handle: string };
  member_reinstated: { handle: string };
  role_assigned: { id: string; member: string; role: string; space: string | null };
  role_revoked: { id: string; member: string; role: string; space: string | null };
  client_credential_revoked: { id: string; member: string };
  client_credential_created: { id: string; member: string; client_name: string; activation: string };
}

export type EventType = keyof EventPayloads;

/** Who caused an event: a member handle, or the steward key (actor null, `via`). */
export type EventActor = { handle: string } | { steward: true } | { system: string };

export interface NewEvent<T extends EventType = EventType> {
  type: T;
  space: string | null;
  actor: EventActor;
  subjects: string[];
  payload: EventPayloads[T];
}

/** The wire shape of an event (decisions §7). */
export interface AtriumEvent {
  cursor: number;
  type: string;
  space: string | null;
  actor: string | null;
  subjects: string[];
  payload: Record<string, unknown>;
  created_ts: string;
}
