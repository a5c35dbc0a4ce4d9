import type { TSchema } from '@sinclair/typebox';
import { activationOperations, activationSchemas } from '../activations/operations.js';
import { contractOperation, discoveryOperation } from '../discovery/operations.js';
import { eventOperations } from '../events/operations.js';
import { identityOperations } from '../identity/operations.js';
import { memberOperations } from '../members/operations.js';
import { roleOperations, roleSchemas } from '../roles/operations.js';
import { EventSchema, eventVariantSchemas, FeedPageSchema } from '../events/schemas.js';
import { admissionSchemas, spaceOperations } from '../spaces/operations.js';
import { SpaceSchema } from '../spaces/schemas.js';
import { MemberSchema } from '../members/schemas.js';
import { ErrorBody } from '../shared/schemas.js';
import { taskOperations } from '../tasks/operations.js';
import { taskSchemas } from '../tasks/schemas.js';
import { channelOperations, channelSchemas } from '../channels/operations.js';
import { messageOperations, messageSchemas } from '../messages/operations.js';
import { inboxOperations } from '../inbox/operations.js';
import { reactionOperations } from '../reactions/operations.js';
import { readMarkOperations, readMarkSchemas } from '../read-marks/operations.js';
import { resourceOperations } from '../resources/operations.js';
import { resourceSchemas } from '../resources/schemas.js';
import { pinOperations } from '../pins/operations.js';
import { pinSchemas } from '../pins/schemas.js';
import { webhookOperations } from '../webhooks/operations.js';
import { webhookSchemas } from '../webhooks/schemas.js';
import { credentialOperations } from '../credentials/operations.js';
import { credentialSchemas } from '../credentials/schemas.js';
import { oauthOperations } from '../oauth/operations.js';
import { searchOperations, searchSchemas } from '../search/operations.js';
import { operatorOperations } from '../operator/operations.js';
import type { AnyOperation } from './operation.js';

/** Named schemas (`components.schemas` in the contract), referenced with Type.Ref. */
export const sharedSchemas: TSchema[] = [
  ErrorBody,
  SpaceSchema,
  MemberSchema,
  ...eventVariantSchemas,
  EventSchema,
  FeedPageSchema,
  ...admissionSchemas,
  ...roleSchemas,
  ...activationSchemas,
  ...taskSchemas,
  ...channelSchemas,
  ...messageSchemas,
  ...readMarkSchemas,
  ...resourceSchemas,
  ...pinSchemas,
  ...webhookSchemas,
  ...credentialSchemas,
  ...searchSchemas,
];

/** Every API operation, in contract order. */
export function allOperations(contract: () => unknown): AnyOperation[] {
  const operations: AnyOperation[] = [
    ...spaceOperations,
    ...memberOperations,
    ...identityOperations,
    ...activationOperations,
    ...roleOperations,
    ...eventOperations,
    ...taskOperations,
    ...channelOperations,
    ...messageOperations,
    ...reactionOperations,
    ...readMarkOperations,
    ...inboxOperations,
    ...resourceOperations,
    ...searchOperations,
    ...pinOperations,
    ...webhookOperations,
    ...credentialOperations,
    ...oauthOperations,
    ...operatorOperations,
  ];
  const endpoints = (): string[] => [...meta, ...operations].map((op) => `${op.method} ${op.path}`);
  const meta: AnyOperation[] = [discoveryOperation(endpoints), contractOperation(contract)];
  return [...meta, ...operations];
}
