import type { Logger } from 'pino';
import type { Resolver } from '../egress/target.js';
import type { GatewayConfig } from './config.js';
import type { Destination } from './destinations.js';
import type { CallLimits } from './limits.js';
import type { GatewayStore } from './store.js';
import type { TicketSigner } from './tickets.js';

/** What the gateway's handlers share. */
export interface GatewayContext {
  config: GatewayConfig;
  destinations: ReadonlyMap<string, Destination>;
  store: GatewayStore;
  signer: TicketSigner;
  /** The calls in flight, bounded per member, per connection and in answer bytes. */
  limits: CallLimits;
  log: Logger;
  /** The time, injectable so a test can let a ticket expire without waiting. */
  now: () => Date;
  /** How host names resolve; the system's, unless a test names its own. */
  resolver: Resolver | undefined;
}
