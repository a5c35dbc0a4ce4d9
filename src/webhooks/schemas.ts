import { Type } from '@sinclair/typebox';
import { Timestamp } from '../shared/schemas.js';

export const WebhookSigningKeySchema = Type.Object(
  {
    kid: Type.String({ description: 'Key id: the RFC 7638 thumbprint of the key; sent as `Webhook-Key-Id`' }),
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String({ description: 'The public key, unpadded base64url (RFC 8037)' }),
    alg: Type.Literal('EdDSA'),
    use: Type.Literal('sig'),
    status: Type.Union([Type.Literal('active'), Type.Literal('retiring')], {
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

export const webhookSchemas = [WebhookSigningKeySchema, WebhookSigningKeySetSchema];
