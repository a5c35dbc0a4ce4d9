import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';

export const listWebhookSigningKeys = defineOperation({
  name: 'list_webhook_signing_keys',
  method: 'GET',
  path: '/v0/webhook-signing-keys',
  tag: 'Webhooks',
  summary: 'The public keys that sign webhook requests',
  description:
    'A JWK Set of Ed25519 keys. Every webhook request names its key in `Webhook-Key-Id`; a receiver verifies ' +
    '`Webhook-Signature` over `<Webhook-Key-Id>.<Webhook-Timestamp>.<raw body>` with that key. ' +
    'After a rotation the previous key stays listed as `retiring` for at least 7 days.',
  auth: { anonymous: true, schemes: [] },
  success: { status: 200, description: 'The active key and any retiring ones.', schema: Type.Ref('WebhookSigningKeySet') },
  errors: [],
  readOnly: true,
  notAnMcpTool: 'for webhook receivers verifying signatures, which are HTTP servers rather than agents',
  handler: async ({ ctx }) => ({ keys: await ctx.webhookKeys.published() }),
});

export const webhookOperations = [listWebhookSigningKeys];
