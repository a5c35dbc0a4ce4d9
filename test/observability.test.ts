import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError } from './support/errors.js';
import { backends, startServer } from './support/server.js';

/** `/healthz`, `/readyz` and `/metrics` (docs/operations.md): outside the API contract, for load balancers and scrapers. */

const METRICS_KEY = 'metrics-key-0123456789abcdef';

/** The value of one sample in Prometheus text, by its name and labels as written. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const backend of backends()) {
  describe(`Liveness, readiness and metrics (${backend})`, () => {
    it('answers /healthz and /readyz, and /readyz 503 once the node is draining', async () => {
      const server = await startServer(backend);
      try {
        const health = await fetch(`${server.url}/healthz`);
        assert.equal(health.status, 200);
        assert.deepEqual(await health.json(), { status: 'ok' });
        const ready = await fetch(`${server.url}/readyz`);
        assert.equal(ready.status, 200);
        assert.deepEqual(await ready.json(), { status: 'ready' });
        // What close() does first, so a load balancer stops sending traffic while requests finish.
        server.app.readiness.draining = true;
        const draining = await fetch(`${server.url}/readyz`);
        assertError({ status: draining.status, headers: draining.headers, body: await draining.json() }, 'node_unavailable');
        assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'a draining node is still alive');
        // Neither is part of the API contract.
        const contract = (await (await fetch(`${server.url}/v0/openapi.json`)).json()) as { paths: Record<string, unknown> };
        assert.equal(Object.keys(contract.paths).some((path) => /healthz|readyz|metrics/.test(path)), false);
      } finally {
        await server.stop();
      }
    });

    it('has no /metrics unless it is turned on', async () => {
      const server = await startServer(backend);
      try {
        const res = await fetch(`${server.url}/metrics`);
        assertError({ status: res.status, headers: res.headers, body: await res.json() }, 'route_not_found');
      } finally {
        await server.stop();
      }
    });

    it('serves /metrics behind its own key: requests by operation, event appends, the log head, waiters, and the pool', async () => {
      const server = await startServer(backend, { env: { ATRIUM_METRICS_KEY: METRICS_KEY } });
      try {
        for (const authorization of [undefined, 'Bearer not-the-metrics-key-at-all', `Bearer ${server.app.ctx.config.stewardKey}`]) {
          const refused = await fetch(`${server.url}/metrics`, authorization ? { headers: { authorization } } : {});
          assert.equal(refused.status, 401);
          assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
        }
        const owner = await server.human('olga', { role: 'owner' });
        assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'gauge', name: 'Gauge' } })).status, 201);
        assert.equal((await server.request('GET', '/v0/spaces/gauge')).status, 200);
        assert.equal((await server.request('GET', '/v0/spaces/nope-nope')).status, 404);
        const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` } });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
        const text = await res.text();
        assert.equal(sample(text, 'atrium_http_requests_total{operation="get_space",status="200"}'), 1);
        assert.equal(sample(text, 'atrium_http_requests_total{operation="get_space",status="404"}'), 1);
        assert.equal(sample(text, 'atrium_http_requests_total{operation="propose_space",status="201"}'), 1);
        assert.ok((sample(text, 'atrium_http_request_duration_seconds_count{operation="get_space"}') ?? 0) >= 2);
        // The human and role of `server.human`, then the proposal.
        assert.equal(sample(text, 'atrium_events_appended_total'), 3);
        const events = (await server.request('GET', '/v0/events', { token: owner.session })).body.events as Array<{ cursor: number }>;
        assert.equal(sample(text, 'atrium_event_log_head'), events.at(-1)!.cursor);
        assert.equal(sample(text, 'atrium_feed_waiters'), 0);
        // Nothing owed: the webhook queue is empty and its oldest wake has no age (the worker's own wait is no feed waiter).
        assert.equal(sample(text, 'atrium_webhook_queue_depth'), 0);
        assert.equal(sample(text, 'atrium_webhook_oldest_owed_seconds'), 0);
        if (backend === 'postgres') {
          assert.equal(sample(text, 'atrium_event_log_leader'), 1);
          assert.equal(sample(text, 'atrium_event_log_queued'), 0);
          assert.ok((sample(text, 'atrium_db_pool_connections{state="total"}') ?? 0) >= 1);
          assert.ok((sample(text, 'atrium_event_numbering_wait_seconds_count') ?? 0) >= 1);
        }
        assert.match(text, /^atrium_process_resident_memory_bytes /m);
      } finally {
        await server.stop();
      }
    });

    it('serves /metrics to anyone when ATRIUM_METRICS=on, for a scraper on a private network', async () => {
      const server = await startServer(backend, { env: { ATRIUM_METRICS: 'on' } });
      try {
        const res = await fetch(`${server.url}/metrics`);
        assert.equal(res.status, 200);
        assert.match(await res.text(), /^# HELP atrium_http_requests_total /m);
      } finally {
        await server.stop();
      }
    });
  });
}
