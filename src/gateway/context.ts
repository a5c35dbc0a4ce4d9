import type { Logger } from 'pino';
import type { EgressPool } from '../egress/request.js';
import type { Resolver } from '../egress/target.js';
import type { GatewayConfig } from './config.js';
import type { Destination } from './destinations.js';
import type { LedgerChain } from './ledger.js';
import type { CallLimits } from './limits.js';
import type { GatewayStore } from './store.js';
import type { TicketSigner } from './tickets.js';

/** What the gateway's handlers share. */
export interface GatewayContext {
  config: GatewayConfig;
  destinations: ReadonlyMap<string, Destination>;
  store: GatewayStore;
  /** The only way records are appended (ledger.ts). */
  ledger: LedgerChain;
  signer: TicketSigner;
  /** When (gateway clock, ms) kept requests of expired tickets were last removed (issue.ts). */
  sweptAt: number;
  /** The calls in flight, bounded per member, per connection and in answer bytes. */
  limits: CallLimits;
  log: Logger;
  /** The time, injectable so a test can let a ticket expire without waiting. */
  now: () => Date;
  /** The upstream connections kept open between calls, each pinned to the address checked when it was made. */
  upstreams: EgressPool;
  /** How host names resolve; the system's, unless a test names its own. */
  resolver: Resolver | undefined;
}
