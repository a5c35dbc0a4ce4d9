import { Type } from '@sinclair/typebox';
import { idPattern } from '../shared/ids.js';
import { Handle, StringEnum, Timestamp } from '../shared/schemas.js';

export const WebhookSigningKeySchema = Type.Object(
  {
    kid: Type.String({ description: 'Key id: the RFC 7638 thumbprint of the key; sent as `Webhook-Key-Id`' }),
    kty: StringEnum(['OKP']),
    crv: StringEnum(['Ed25519']),
    x: Type.String({ description: 'The public key, unpadded base64url (RFC 8037)' }),
    alg: StringEnum(['EdDSA']),
    use: StringEnum(['sig']),
    status: StringEnum(['active', 'retiring'], {
      description: '`active` signs new requests; a `retiring` key was rotated out and stays listed for at least 7 days',
    }),
    created_ts: Timestamp,
  },
  { $id: 'WebhookSigningKey', additionalProperties: false },
);

export const WebhookSigningKeySetSchema = Type.Object(
  { keys: Type.Array(Type.Ref('WebhookSigningKey')) },
  { $id: 'WebhookSigningKeySet', additionalProperties: false, description: 'A JWK Set (RFC 7517) of public Ed25519 keys' },
);


const ENDPOINT_ID = idPattern('whep');

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ pattern: ENDPOINT_ID, description: 'Endpoint id (`whep_…`)' }),
    url: Type.String({ description: 'The receiver URL as registered (WHATWG-serialised)' }),
    status: StringEnum(['unverified', 'active', 'disabled'], {
      description: '`unverified` until a challenge succeeds; only `active` endpoints are sent to; `disabled` after a receiver answered 410, until verified again',
    }),
    owner_member: Handle,
    created_ts: Timestamp,
    verified_ts: Type.Union([Timestamp, Type.Null()], { description: 'When a challenge last succeeded; null until then' }),
  },
  { $id: 'WebhookEndpoint', additionalProperties: false },
);

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An absolute https URL with no user name or password whose host resolves only to public addresses (http and private addresses only inside ATRIUM_EGRESS_ALLOW_CIDRS)',
    }),
  },
  { additionalProperties: false },
);

export const EndpointParams = Type.Object({ id: Type.String({ pattern: ENDPOINT_ID, description: 'Endpoint id' }) }, { additionalProperties: false });

export const webhookSchemas = [WebhookSigningKeySchema, WebhookSigningKeySetSchema, WebhookEndpointSchema];
