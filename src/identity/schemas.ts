import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { MemberRef } from '../members/schemas.js';
import { idPattern } from '../shared/ids.js';
import { Handle, StringEnum, Timestamp } from '../shared/schemas.js';

export const Email = Type.String({
  format: 'idn-email',
  maxLength: 254,
  description: 'E-mail address as mail can be sent to it (RFC 5321, UTF-8 allowed as in RFC 6531, e.g. `ops@localhost`); compared case-insensitively',
});

const DisplayName = Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', description: 'Defaults to the handle' });

/** protocol: Member. `POST /v0/humans` and `POST /v0/sign-up` take the same body. */
export const NewHumanBody = Type.Object(
  { handle: Handle, email: Email, display_name: Type.Optional(DisplayName) },
  { additionalProperties: false },
);

export const SignInEmailBody = Type.Object({ email: Email }, { additionalProperties: false });

export const SignInVerifyBody = Type.Object(
  {
    email: Email,
    code: Type.String({ minLength: 1, maxLength: 64, description: 'The code from the mail; case, spaces and dashes do not matter' }),
    session_token: Type.Optional(
      StringEnum(['body', 'cookie'], {
        default: 'body',
        description:
          'Where the session token goes. `body` (the default, for API and CLI clients): in the answer as `token`, and in the `atrium_session` cookie. ' +
          '`cookie` (for a browser page): only in the HttpOnly cookie, so the page never holds the token.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SentSchema = Type.Object(
  { status: StringEnum(['sent'], { description: 'Always `sent`, whether or not the address has an account' }) },
  { additionalProperties: false },
);

export const SignedInSchema = Type.Object(
  {
    token: Type.Optional(
      Type.String({ description: 'Session token (`st_atrium_…`); also set as the `atrium_session` cookie. Left out when the request asked for `session_token: "cookie"`' }),
    ),
    member: MemberRef,
    expires_ts: Timestamp,
  },
  { additionalProperties: false },
);

export const ApiCredentialSchema = Type.Object(
  {
    id: Type.String(),
    client_name: UntrustedText(),
    key_prefix: Type.String({ description: 'The first characters of the key, to recognise it; never the key' }),
    created_ts: Timestamp,
    last_used_ts: Type.Union([Timestamp, Type.Null()], { description: 'Refreshed at most once a minute' }),
    revoked_ts: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);

export const CredentialParams = Type.Object(
  { id: Type.String({ pattern: idPattern('cred'), description: 'The API credential id.' }) },
  { additionalProperties: false },
);
