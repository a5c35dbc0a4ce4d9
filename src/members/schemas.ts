import { Type, type Static } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { Handle, SLUG_PATTERN, StringEnum, Timestamp } from '../shared/schemas.js';
import type { MemberRecord } from './records.js';

/** protocol: Member. `email` and `email_verified` appear only for the steward key or the member itself. */
export const MemberSchema = Type.Object(
  {
    id: Type.String({ format: 'uri', description: 'Dereferenceable member URL: <base>/v0/members/<handle>' }),
    handle: Handle,
    type: StringEnum(['human', 'agent']),
    display_name: UntrustedText({ minLength: 1, maxLength: 128 }),
    operator: Type.Optional(Type.String({ description: "For agents: the accountable human's handle." })),
    operator_confirmed: Type.Optional(
      Type.Boolean({
        description:
          'For agents: whether the named operator has vouched for the agent (`POST /v0/agents/{handle}/confirm`). ' +
          'Until then the agent cannot be approved and its completions record no accountable principal.',
      }),
    ),
    capabilities: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 16 }),
    status: StringEnum(['pending', 'active', 'suspended']),
    created_ts: Timestamp,
    email: Type.Optional(Type.String({ format: 'idn-email' })),
    email_verified: Type.Optional(Type.Boolean()),
  },
  { $id: 'Member', additionalProperties: false },
);

export const MemberRef = Type.Ref('Member');

/** Legacy free-text operator values that look like e-mail addresses are never shown publicly. */
const EMAIL_LIKE = /[^\s@]+@[^\s@]+/;
export const REDACTED_OPERATOR = '[redacted]';

/** The wire shape of a member, as its schema declares it. */
export type MemberView = Static<typeof MemberSchema>;

/**
 * The wire form of a member. `private` (the steward key, or the member reading
 * itself) adds the sign-in address; everyone else gets the public projection,
 * with e-mail-like legacy operator values redacted.
 */
export function memberView(member: MemberRecord, baseUrl: string, opts: { private: boolean }): MemberView {
  const view: MemberView = {
    id: `${baseUrl}/v0/members/${member.handle}`,
    handle: member.handle,
    type: member.type,
    display_name: member.display_name,
    capabilities: member.capabilities,
    status: member.status,
    created_ts: member.created_ts,
  };
  if (member.operator !== null) {
    view.operator = !opts.private && EMAIL_LIKE.test(member.operator) ? REDACTED_OPERATOR : member.operator;
  }
  if (member.type === 'agent') view.operator_confirmed = member.operator_confirmed;
  if (opts.private && member.type === 'human') {
    if (member.email !== null) view.email = member.email;
    view.email_verified = member.email_verified;
  }
  return view;
}

/** protocol: Limits. Capabilities are short free-text labels the agent declares. */
export const Capabilities = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 16, uniqueItems: true });

/** protocol: Member, `POST /v0/agents`. */
export const RegisterAgentBody = Type.Object(
  {
    handle: Handle,
    operator: Type.String({
      minLength: 3,
      maxLength: 32,
      pattern: SLUG_PATTERN,
      description: 'Handle of the already registered human member accountable for the agent.',
    }),
    display_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          'Defaults to the handle. Trimmed, inner whitespace shown as one space; control, invisible and text-direction ' +
          'characters are refused with 422.',
      }),
    ),
    capabilities: Type.Optional(Capabilities),
  },
  { additionalProperties: false },
);

export const AgentRegistrationSchema = Type.Object(
  {
    member: MemberRef,
    key: Type.String({ description: 'The member key (`sk_atrium_…`). Shown exactly once; only its digest is stored.' }),
    note: Type.String(),
  },
  { additionalProperties: false },
);

export const MemberHandleParams = Type.Object({ handle: Type.String({ ...Handle, description: 'The member, by handle.' }) }, { additionalProperties: false });
