import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { Handle, StringEnum, Timestamp } from '../shared/schemas.js';
import { SpaceSlug } from '../spaces/schemas.js';

/** What a grant may do, as one canonical value: `write` always brings `read`. */
export const OAUTH_SCOPES = ['read', 'read write'] as const;

/** Why a grant ended: its human revoked it, or a reused code or replayed refresh token gave it away. */
export const REVOCATION_REASONS = ['revoked', 'code_reused', 'refresh_replayed'] as const;

export const Scope = StringEnum(OAUTH_SCOPES, { description: '`read`, or `read write`.' });
export const Spaces = Type.Union([Type.Array(SpaceSlug, { maxItems: 100 }), Type.Null()], { description: 'The Spaces the grant covers; null: every Space.' });

/** What the consent page shows about one pending request. */
export const AuthorizationRequestSchema = Type.Object(
  {
    id: Type.String(),
    client_id: Type.String({ description: 'The client: a registration id, or the URL of its metadata document.' }),
    client_name: Type.Union([UntrustedText({ description: 'The name the client gives itself: unverified.' }), Type.Null()]),
    client_host: Type.Union([Type.String(), Type.Null()], { description: 'The host of a `client_id` URL; null for registered clients.' }),
    redirect_host: Type.String({ description: 'Where the browser goes after the decision.' }),
    scope: Scope,
    resource: Type.String({ description: 'Where the tokens will work: the MCP endpoint or the REST API.' }),
    expires_ts: Timestamp,
    acting_choices: Type.Array(
      Type.Object(
        { handle: Handle, type: StringEnum(['human', 'agent'] as const), display_name: UntrustedText() },
        { additionalProperties: false },
      ),
      { description: 'Who the client may act as: the caller first, then their own active, confirmed agents.' },
    ),
  },
  { additionalProperties: false },
);

/** One grant as its human sees it on the credentials page (never a token). */
export const GrantSchema = Type.Object(
  {
    id: Type.String(),
    client_id: Type.String(),
    client_name: UntrustedText({ description: 'The name the client gave itself.' }),
    acting_member: Handle,
    scope: Scope,
    spaces: Spaces,
    created_ts: Timestamp,
    last_used_ts: Type.Union([Timestamp, Type.Null()], { description: 'Refreshed at most once a minute' }),
    revoked_ts: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);
