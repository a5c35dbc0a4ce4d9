import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { secretsEqual } from '../shared/secrets.js';
import { ERROR_CODE_HEADER } from '../shared/error-catalogue.js';
import type { Metrics } from './metrics.js';

/** Whether this node should be sent traffic: false from the moment it starts shutting down. */
export interface Readiness {
  draining: boolean;
  /** Why this node's storage is no longer the one it started with (storage/file-watch.ts), looked at afresh. */
  storageLost?: () => string | undefined;
}

/**
 * `/healthz` (the process answers: liveness), `/readyz` (this node can reach its
 * database, has migrated it, and is not shutting down: a load balancer drains it
 * on 503), and `/metrics` when configured. None is part of the API contract.
 */
export function registerObservability(app: FastifyInstance, ctx: AppContext, metrics: Metrics, readiness: Readiness): void {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));

  app.get('/readyz', hidden, async (_request, reply) => {
    if (readiness.draining) return reply.code(503).header(ERROR_CODE_HEADER, 'node_unavailable').send({ detail: 'this node is shutting down' });
    const lost = readiness.storageLost?.();
    if (lost !== undefined) return reply.code(503).header(ERROR_CODE_HEADER, 'node_unavailable').send({ detail: ctx.db.writesRefused ?? lost });
    try {
      // Migrations run before a node listens, so a node that answers has migrated; the database must still answer now.
      await sql`select 1`.execute(ctx.db.kysely);
    } catch {
      return reply.code(503).header(ERROR_CODE_HEADER, 'node_unavailable').send({ detail: 'this node cannot reach its database' });
    }
    return { status: 'ready' };
  });

  const { metrics: config } = ctx.config;
  if (!config.enabled || !metrics.registry) return;
  const registry = metrics.registry;
  app.get('/metrics', hidden, async (request, reply) => {
    if (config.key !== undefined) {
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
      if (presented === undefined || !secretsEqual(presented, config.key)) {
        return reply.code(401).header('www-authenticate', 'Bearer realm="atrium-metrics"').header(ERROR_CODE_HEADER, 'credential_required').send({ detail: 'the metrics key is required' });
      }
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  app.addHook('onResponse', async (request, reply) => {
    const operation = (request.routeOptions.config as { operation?: string } | undefined)?.operation;
    if (operation !== undefined) metrics.request(operation, reply.statusCode, reply.elapsedTime / 1000);
  });
}
