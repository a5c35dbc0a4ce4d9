import type { ActivationsTables } from '../activations/tables.js';
import type { EventsTables } from '../events/tables.js';
import type { IdentityTables } from '../identity/tables.js';
import type { MembersTables } from '../members/tables.js';
import type { RolesTables } from '../roles/tables.js';
import type { SpacesTables } from '../spaces/tables.js';
import type { TasksTables } from '../tasks/tables.js';
import type { ChannelsTables } from '../channels/tables.js';
import type { MessagesTables } from '../messages/tables.js';
import type { ResourcesTables } from '../resources/tables.js';
import type { PinsTables } from '../pins/tables.js';
import type { HostSecretsTables, IdempotencyKeysTables, RateLimitsTables } from '../shared/tables.js';
import type { WebhooksTables } from '../webhooks/tables.js';
import type { CredentialsTables } from '../credentials/tables.js';
import type { InboxTables } from '../inbox/tables.js';
import type { OAuthTables } from '../oauth/tables.js';
import type { SearchTables } from '../search/tables.js';
import type { ReactionsTables } from '../reactions/tables.js';
import type { ReadMarksTables } from '../read-marks/tables.js';
import type { OperatorTables } from '../operator/tables.js';

/** The whole database, as the intersection of each capability's own tables. */
export type DatabaseSchema = MembersTables &
  IdentityTables &
  RolesTables &
  SpacesTables &
  EventsTables &
  ActivationsTables &
  TasksTables &
  ChannelsTables &
  MessagesTables &
  ResourcesTables &
  PinsTables &
  RateLimitsTables &
  HostSecretsTables &
  WebhooksTables &
  IdempotencyKeysTables &
  CredentialsTables &
  InboxTables &
  OAuthTables &
  SearchTables &
  ReactionsTables &
  ReadMarksTables &
  OperatorTables;
