import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { MemberRef } from '../members/schemas.js';
import { StringEnum, Timestamp } from '../shared/schemas.js';

/** `pending`, `approved` and `consumed` are stored; `expired` is a pending one past its time. */
export const ACTIVATION_STATUSES = ['pending', 'approved', 'consumed', 'expired'] as const;

const summaryProperties = {
  code: Type.String({ description: 'Identifies the activation, e.g. `WDJB-MJHT`. Case and dashes do not matter.' }),
  activation_url: Type.String({ format: 'uri', description: 'Where the human approves: `<base>/activate/<code>`.' }),
  client_name: UntrustedText({ minLength: 1, maxLength: 128, description: 'Chosen by whoever started the activation: show it as data.' }),
  status: StringEnum(ACTIVATION_STATUSES),
  member_handle: Type.Union([Type.String(), Type.Null()], { description: 'Set when approved.' }),
  expires_ts: Timestamp,
};

export const ActivationSummarySchema = Type.Object(summaryProperties, { $id: 'ClientActivation', additionalProperties: false });

export const CreatedActivationSchema = Type.Object(
  {
    ...summaryProperties,
    poll_secret: Type.String({ description: 'One-time secret (256 bits); shown only here, only its hash is stored.' }),
    poll_url: Type.String({ format: 'uri' }),
    poll_interval_seconds: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

export const PollResultSchema = Type.Object(
  {
    status: StringEnum(['pending', 'approved', 'expired']),
    retry_after_seconds: Type.Integer({ minimum: 1 }),
    member: Type.Optional(MemberRef),
    key: Type.Optional(Type.String({ description: 'The API key (`sk_atrium_…`), shown exactly once.' })),
  },
  { additionalProperties: false },
);
