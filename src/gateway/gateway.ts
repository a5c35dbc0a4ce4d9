import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { EgressPool } from '../egress/request.js';
import type { Resolver } from '../egress/target.js';
import type { GatewayConfig } from './config.js';
import type { GatewayContext } from './context.js';
import { LedgerChain } from './ledger.js';
import { CallLimits } from './limits.js';
import { createGatewayServer } from './server.js';
import { migrateStore, openStore } from './store.js';
import { TicketSigner } from './tickets.js';

export interface Gateway {
  ctx: GatewayContext;
  /** Listens on the configured host and port; resolves with the base URL actually bound. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  log?: Logger;
  now?: () => Date;
  resolver?: Resolver;
}

/** The gateway's own logger: request lines carry method, path and status only; nothing carries a secret. */
export function createGatewayLogger(level: string): Logger {
  return pino({ level, base: { process: 'gateway' } });
}

/** Opens and migrates the gateway's store, makes its ticket key, and builds its HTTP server. */
export async function createGateway(config: GatewayConfig, opts: GatewayOptions = {}): Promise<Gateway> {
  const store = openStore(config.databaseUrl);
  try {
    await migrateStore(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  const ctx: GatewayContext = {
    config,
    destinations: new Map(config.destinations.map((d) => [d.id, d])),
    store,
    ledger: new LedgerChain(store),
    sweptAt: 0,
    signer: await TicketSigner.generate(),
    limits: new CallLimits(config.calls),
    log: opts.log ?? createGatewayLogger(config.logLevel),
    now: opts.now ?? (() => new Date()),
    upstreams: new EgressPool(),
    resolver: opts.resolver,
  };
  const http = createGatewayServer(ctx);
  return {
    ctx,
    async listen() {
      await http.listen({ host: config.host, port: config.port });
      const address = http.server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${host}:${address.port}`;
    },
    async close() {
      await http.close();
      // The outcome records of answers already given.
      await ctx.ledger.idle();
      ctx.upstreams.destroy();
      await store.close();
    },
  };
}
