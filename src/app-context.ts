import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { CredentialConnections } from './credentials/connections.js';
import type { AddressPolicy } from './egress/address-policy.js';
import type { Mailer } from './mail/mailer.js';
import type { MentionParser } from './messages/mention-parser.js';
import type { AddressDigest } from './shared/client-address.js';
import type { Clock } from './shared/clock.js';
import type { Database } from './storage/database.js';
import type { EventLog } from './events/log.js';
import type { MemberKeyCache } from './identity/member-key-cache.js';
import type { Metrics } from './observability/metrics.js';
import type { KnownSpaces } from './spaces/known-spaces.js';
import type { KeptResources } from './resources/kept-documents.js';
import type { WebhookSigningKeys } from './webhooks/signing-keys.js';
import type { WebhookDispatch } from './webhooks/dispatch.js';
import type { CredentialCallLimits } from './credentials/call-limits.js';

/** The services every operation may use; built once by the composition root (app.ts). */
export interface AppContext {
  config: Config;
  db: Database;
  /** The event log of this node: the tail that follows it and wakes whoever waits (docs/events.md). */
  events: EventLog;
  /** Space records as fresh as this node's view of the log, for reads only (spaces/known-spaces.ts). */
  spaces: KnownSpaces;
  /** Resources as this node last served them, for the Space's head (resources/kept-documents.ts). */
  resources: KeptResources;
  /** Member-key resolutions this node keeps while it hears every change to them (identity/member-key-cache.ts). */
  memberKeys: MemberKeyCache;
  /** What an operator watches; no-ops unless `/metrics` is on. */
  metrics: Metrics;
  clock: Clock;
  mailer: Mailer;
  /** Finds mention candidates off the main thread, with a time budget. */
  mentions: MentionParser;
  /** A client address as Atrium keeps it: keyed with the host secret, never bare. */
  addressDigest: AddressDigest;
  log: Logger;
  /** Which addresses outgoing requests may reach (docs/egress.md), parsed once from the configuration. */
  egress: AddressPolicy;
  /** The host's webhook signing keys, shared by every node (docs/webhooks.md). */
  webhookKeys: WebhookSigningKeys;
  /** This node's webhook worker (docs/webhooks.md): told when something became sendable. */
  webhooks: WebhookDispatch;
  /** The host's credential connections (ATRIUM_CREDENTIAL_CONNECTIONS), checked at start (docs/gateway.md). */
  credentialConnections: CredentialConnections;
  /** The credential calls this node has in flight, per member and per connection (docs/gateway.md, "Calls in flight"). */
  credentialCalls: CredentialCallLimits;
}
