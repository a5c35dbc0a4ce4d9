import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { OAUTH_SCOPES, REVOCATION_REASONS } from '../oauth/schemas.js';
import { MIME_TYPES } from '../resources/schemas.js';
import { RoleSchema } from '../roles/schemas.js';
import { Handle, StringEnum } from '../shared/schemas.js';
import { JoinPolicySchema, ReviewPolicySchema, SpaceSlug } from '../spaces/schemas.js';
import { ASSURANCES, TASK_KINDS, TASK_STATUSES } from '../tasks/schemas.js';

/**
 * The event vocabulary, declared once: each event type with the fields of its
 * payload. `EventPayloads` (what services may emit, checked by the compiler),
 * the contract's per-type event schemas (so generated clients can narrow on
 * `type`) and the event table in docs/protocol.md all come from here.
 *
 * Payloads never carry secrets or content bodies, with one deliberate
 * exception: a message is itself the notification, so `message_posted` and
 * `message_edited` carry its `body`. Member-written text (names, reasons, topics, bodies) is
 * declared `UntrustedText`, so MCP returns it inside the untrusted-content
 * envelope.
 */

const Slug = SpaceSlug;
const SpaceName = UntrustedText({ description: 'The Space name, as its proposer wrote it.' });
const JoinPolicy = JoinPolicySchema;
const ReviewPolicy = ReviewPolicySchema;
const TaskId = Type.Integer({ minimum: 1, description: 'The task id.' });
const TaskKind = StringEnum(TASK_KINDS, { description: 'The task kind.' });
const TaskStatus = StringEnum(TASK_STATUSES);
const Principal = Type.Union([Handle, Type.Null()], {
  description: 'The accountable human: a human is their own; an agent answers to its confirmed operator (null if none).',
});
const ResourceId = Type.String({ description: 'The Resource id.' });
const ResourceName = UntrustedText({ description: 'The Resource name after this change.' });
const Digest = Type.String({ pattern: '^sha256:[0-9a-f]{64}$', description: 'Content digest of the version, `sha256:<hex>`.' });
const Pins = Type.Array(Type.String(), { maxItems: 5, description: 'Pinned Resource ids and `repo:<path>.md` entries, in order.' });
const Reason = (what: string) => UntrustedText({ description: what });
const RoleName = RoleSchema;
const ReactionFields = {
  message_id: Type.Integer({ minimum: 1 }),
  channel: Type.Union([Type.String(), Type.Null()], { description: "The message's channel; null for direct and task messages." }),
  task: Type.Union([TaskId, Type.Null()], { description: 'The task of a task discussion message, else null.' }),
  emoji: UntrustedText({ description: 'One fully-qualified Unicode emoji.' }),
  direct_members: Type.Optional(Type.Array(Handle, { minItems: 2, maxItems: 2, description: 'Direct messages only: the two members.' })),
};

export const EVENT_PAYLOAD_FIELDS = {
  space_proposed: { slug: Slug, name: SpaceName, join_policy: JoinPolicy },
  space_approved: { slug: Slug },
  space_archived: { slug: Slug, reason: Reason('Why the Space was archived (may be empty).') },
  space_restored: { slug: Slug },
  space_review_policy_changed: {
    slug: Slug,
    previous_review_policy: ReviewPolicy,
    review_policy: ReviewPolicy,
    reason: Reason('Why the policy changed.'),
  },
  space_member_invited: { slug: Slug, member: Handle },
  space_join_requested: { slug: Slug, member: Handle },
  space_member_admitted: { slug: Slug, member: Handle, join_policy: JoinPolicy },
  space_join_declined: { slug: Slug, member: Handle },
  space_member_left: { slug: Slug, member: Handle },
  space_member_removed: { slug: Slug, member: Handle },
  member_registered: {
    handle: Handle,
    type: StringEnum(['human', 'agent'] as const),
    operator: Type.Union([Handle, Type.Null()], { description: "An agent's operator; null for humans." }),
    status: StringEnum(['pending', 'active', 'suspended'] as const, { description: 'Status at registration.' }),
  },
  member_approved: { handle: Handle },
  agent_operator_confirmed: {
    handle: Handle,
    operator: Type.Union([Handle, Type.Null()], { description: 'The operator who vouched for the agent.' }),
  },
  member_suspended: { handle: Handle },
  member_reinstated: { handle: Handle },
  role_assigned: { id: Type.String(), member: Handle, role: RoleName, space: Type.Union([Slug, Type.Null()]) },
  role_revoked: { id: Type.String(), member: Handle, role: RoleName, space: Type.Union([Slug, Type.Null()]) },
  client_credential_revoked: { id: Type.String({ description: 'The API credential id.' }), member: Handle },
  client_credential_created: {
    id: Type.String({ description: 'The API credential id.' }),
    member: Handle,
    client_name: UntrustedText({ description: 'The name the client gave itself.' }),
    activation: Type.String({ description: 'The activation code that minted it.' }),
  },
  task_created: { id: TaskId, kind: TaskKind, created_by: Handle },
  task_claimed: { id: TaskId, kind: TaskKind, claimant: Handle },
  task_released: { id: TaskId, kind: TaskKind, claimant: Handle, released_by: Handle },
  task_submitted: { id: TaskId, kind: TaskKind, worker: Handle },
  task_completed: {
    id: TaskId,
    kind: TaskKind,
    worker: Handle,
    worker_principal: Principal,
    completer: Handle,
    completer_principal: Principal,
    assurance: StringEnum(ASSURANCES, { description: 'The assurance that actually held for this completion.' }),
    required_assurance: StringEnum(ASSURANCES, { description: 'The least assurance the task kind and review policy required.' }),
  },
  task_reopened: { id: TaskId, kind: TaskKind, previous_status: TaskStatus },
  task_cancelled: { id: TaskId, kind: TaskKind, previous_status: TaskStatus, claimant: Type.Union([Handle, Type.Null()]) },
  channel_created: { name: Type.String({ description: 'The channel name.' }), topic: UntrustedText({ description: 'The channel topic.' }) },
  message_posted: {
    message_id: Type.Integer({ minimum: 1 }),
    channel: Type.Union([Type.String(), Type.Null()], { description: 'The channel; null for direct and task messages.' }),
    task: Type.Union([TaskId, Type.Null()], { description: 'The task of a task discussion message, else null.' }),
    thread_root: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "A reply's thread root; null at top level." })),
    author: Handle,
    body: Type.Optional(UntrustedText({ description: 'The Markdown body, verbatim; absent once the message is deleted.' })),
    mentioned_members: Type.Array(Handle, { description: 'Members notified: resolved mentions, and the other member of a direct message.' }),
    direct_members: Type.Optional(Type.Array(Handle, { minItems: 2, maxItems: 2, description: 'Direct messages only: the two members.' })),
  },
  message_edited: {
    message_id: Type.Integer({ minimum: 1 }),
    channel: Type.Union([Type.String(), Type.Null()]),
    task: Type.Union([TaskId, Type.Null()]),
    thread_root: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    author: Handle,
    body: Type.Optional(UntrustedText({ description: 'The Markdown body of that version; absent once the message is deleted.' })),
    version: Type.Integer({ minimum: 2, description: 'The version this edit made.' }),
    mentioned_members: Type.Array(Handle, { description: 'The members that version mentions.' }),
    direct_members: Type.Optional(Type.Array(Handle, { minItems: 2, maxItems: 2 })),
  },
  reaction_added: ReactionFields,
  reaction_removed: ReactionFields,
  message_deleted: {
    message_id: Type.Integer({ minimum: 1 }),
    channel: Type.Union([Type.String(), Type.Null()]),
    task: Type.Union([TaskId, Type.Null()]),
    thread_root: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    author: Handle,
    /** Null when the steward key deleted it (the event's `via` says so). */
    deleted_by: Type.Union([Handle, Type.Null()]),
    direct_members: Type.Optional(Type.Array(Handle, { minItems: 2, maxItems: 2 })),
  },
  resource_created: {
    resource_id: ResourceId,
    version: Type.Integer({ minimum: 1 }),
    kind: Type.String(),
    name: ResourceName,
    mime_type: StringEnum(MIME_TYPES),
    digest: Digest,
    byte_length: Type.Integer({ minimum: 0 }),
  },
  resource_version_added: {
    resource_id: ResourceId,
    version: Type.Integer({ minimum: 1 }),
    name: ResourceName,
    mime_type: StringEnum(MIME_TYPES),
    digest: Digest,
    byte_length: Type.Integer({ minimum: 0 }),
  },
  space_pins_updated: {
    slug: Slug,
    previous_resource_ids: Pins,
    resource_ids: Pins,
    reason: Reason('Why the pins changed (may be empty).'),
    pin_proposal: Type.Optional(Type.Integer({ minimum: 1, description: 'The pin proposal this change accepted, if any.' })),
  },
  pin_proposed: { id: TaskId, resource_id: ResourceId, proposed_by: Handle, rationale: Reason('Why the proposer wants it pinned.') },
  pin_proposal_accepted: { id: TaskId, resource_id: ResourceId, proposed_by: Handle },
  pin_proposal_declined: { id: TaskId, resource_id: ResourceId, proposed_by: Handle, reason: Reason('Why it was declined.') },
  // Credential events name the request by method and host only: query, header and body values never enter the log.
  credential_approval_created: {
    id: Type.String({ description: 'The approval id.' }),
    connection_id: Type.String(),
    member_handle: Handle,
    task_id: Type.Union([TaskId, Type.Null()]),
    run_id: Type.String(),
    method: Type.String(),
    host: Type.String({ description: 'The host (and port) of the approved URL; never its path or query.' }),
    expires_ts: Type.String({ format: 'date-time' }),
  },
  credential_ticket_issued: {
    connection_id: Type.String(),
    run_id: Type.String(),
    task_id: Type.Union([TaskId, Type.Null()]),
    approval_id: Type.Union([Type.String(), Type.Null()]),
    method: Type.String(),
    host: Type.String({ description: 'The host (and port) of the request URL; never its path or query.' }),
    expires_ts: Type.String({ format: 'date-time', description: "When the ticket's one use expires." }),
  },
  oauth_grant_created: {
    id: Type.String(),
    client_id: Type.String(),
    acting_member: Handle,
    scope: StringEnum(OAUTH_SCOPES),
    spaces: Type.Union([Type.Array(Slug), Type.Null()]),
  },
  oauth_grant_revoked: { id: Type.String(), acting_member: Handle, reason: StringEnum(REVOCATION_REASONS) },
} satisfies Record<string, TProperties>;

type PayloadFields = typeof EVENT_PAYLOAD_FIELDS;

/** Every event type Atrium emits, with the payload a service passes to `emit`. */
export type EventPayloads = { [T in keyof PayloadFields]: Static<TObject<PayloadFields[T]>> };

/** Every event type, at run time (the contract's `type` values), in declaration order. */
export const EVENT_TYPES = Object.keys(EVENT_PAYLOAD_FIELDS) as Array<keyof PayloadFields>;

/** What every event means in a sentence; the contract and docs show it with the type. */
export const EVENT_MEANINGS: { [T in keyof PayloadFields]: string } = {
  space_proposed: 'A member proposed a Space.',
  space_approved: 'An Owner/Host approved a proposed Space; it is active and has channel `general`.',
  space_archived: 'A proposed Space was archived.',
  space_restored: 'An archived Space was restored to proposed.',
  space_review_policy_changed: "The Space's review policy changed.",
  space_member_invited: 'An Owner/Host invited a member to the Space.',
  space_join_requested: 'A member asked to join a `request` Space.',
  space_member_admitted: 'A member was admitted to the Space.',
  space_join_declined: 'A join request was declined.',
  space_member_left: 'A member left the Space.',
  space_member_removed: 'An Owner/Host removed a member from the Space.',
  member_registered: 'A member was registered (a human added, or an agent registered).',
  member_approved: 'A pending agent was approved.',
  agent_operator_confirmed: "An agent's operator vouched for it.",
  member_suspended: 'A member was suspended.',
  member_reinstated: 'A suspended member was reinstated.',
  role_assigned: 'A role was assigned.',
  role_revoked: 'A role assignment was revoked.',
  client_credential_revoked: 'An API credential was revoked.',
  client_credential_created: 'A client activation was approved and minted an API credential.',
  task_created: 'A task was created.',
  task_claimed: 'A member claimed a task.',
  task_released: 'A claim on a task was released.',
  task_submitted: 'The claimant submitted the task for completion.',
  task_completed: 'A task was completed, with its provenance.',
  task_reopened: 'A task was reopened.',
  task_cancelled: 'A task was cancelled (a pin proposal: declined).',
  channel_created: 'A channel was created (`general` comes with `space_approved`).',
  message_posted: 'A message was posted to a channel, a task discussion or a direct conversation.',
  message_edited: "A message's author edited it; newly mentioned members are notified.",
  reaction_added: 'A member reacted to a message with an emoji.',
  reaction_removed: 'A member took back their reaction to a message.',
  message_deleted: 'A message was deleted by its author or an Owner/Host: its body is gone from it and from its earlier events.',
  resource_created: 'A Resource was created with its first version.',
  resource_version_added: 'A Resource got a new version (perhaps with a new name).',
  space_pins_updated: "The Space's pins were set or appended to.",
  pin_proposed: 'A member proposed pinning a Resource.',
  pin_proposal_accepted: 'An Owner/Host accepted a pin proposal.',
  pin_proposal_declined: 'An Owner/Host declined a pin proposal.',
  credential_approval_created: 'An Owner/Host approved one exact external request for a member.',
  credential_ticket_issued: 'The credential gateway issued a ticket for one exact external request of a member.',
  oauth_grant_created: 'A human let an OAuth client act for them or their agent.',
  oauth_grant_revoked: 'An OAuth grant was revoked.',
};

/**
 * Who acted when no member did: the steward key, anonymous agent registration,
 * or the admin CLI. The event's `actor` is then null and the payload says `via`.
 */
export const EVENT_VIA = ['steward_key', 'registration', 'admin_cli'] as const;
export type EventVia = (typeof EVENT_VIA)[number];

/** The wire payload of one event type: its fields, plus `via` when no member acted. */
export function payloadSchema<T extends keyof PayloadFields>(type: T): TSchema {
  return Type.Object(
    {
      ...EVENT_PAYLOAD_FIELDS[type],
      via: Type.Optional(StringEnum(EVENT_VIA, { description: 'Present when `actor` is null: what acted instead of a member.' })),
    },
    { additionalProperties: false },
  );
}
