import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What an operator watches (docs/operations.md). One registry per node, built
 * only when `/metrics` is on; when it is off every instrument is a no-op, so
 * the request path pays nothing for it. Capabilities record through this
 * interface and add their own instruments to `registry` (webhook queues,
 * gateway calls).
 */
export interface Metrics {
  readonly registry: Registry | undefined;
  /** One API request answered. */
  request(operation: string, status: number, seconds: number): void;
  /** Events a committed transaction appended. */
  eventsAppended(count: number): void;
  /** A write waited this long for its events to be numbered (PostgreSQL). */
  numberedAfter(seconds: number): void;
  /** One webhook delivery attempt and what came of it (docs/webhooks.md). */
  webhookAttempt(outcome: 'delivered' | 'failed' | 'dead' | 'gone'): void;
  /** Deliveries cancelled unsent (their owner, Space or subscription may no longer be sent to). */
  webhookCancelled(count: number): void;
  /** A value read at scrape time; with `labels`, one value per label set. */
  gauge(name: string, help: string, read: () => GaugeReading | Promise<GaugeReading>, labels?: string[]): void;
  /** A count kept elsewhere that only ever grows (a counter), read at scrape time. */
  counter(name: string, help: string, read: () => GaugeReading, labels?: string[]): void;
}

type GaugeReading = number | Array<[Record<string, string>, number]>;

const NONE: Metrics = {
  registry: undefined,
  request: () => undefined,
  eventsAppended: () => undefined,
  numberedAfter: () => undefined,
  webhookAttempt: () => undefined,
  webhookCancelled: () => undefined,
  gauge: () => undefined,
  counter: () => undefined,
};

export function createMetrics(enabled: boolean): Metrics {
  if (!enabled) return NONE;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'atrium_' });
  const requests = new Counter({
    name: 'atrium_http_requests_total',
    help: 'API requests answered, by operation and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'atrium_http_request_duration_seconds',
    help: 'Time to answer an API request, by operation (long polls included: see feed waiters).',
    labelNames: ['operation'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const appended = new Counter({ name: 'atrium_events_appended_total', help: 'Events committed by this node.', registers: [registry] });
  const numbered = new Histogram({
    name: 'atrium_event_numbering_wait_seconds',
    help: 'PostgreSQL: how long a write waited for its events to be numbered after its commit (the ordering lag a writer sees).',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 10],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'atrium_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this node, by outcome: delivered (2xx), failed (to be retried), dead (attempts ran out), gone (410).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const cancelled = new Counter({
    name: 'atrium_webhook_cancelled_total',
    help: 'Webhook deliveries this node cancelled unsent: the owner, the Space or the range may no longer be sent.',
    registers: [registry],
  });
  return {
    registry,
    request: (operation, status, seconds) => {
      requests.inc({ operation, status: String(status) });
      durations.observe({ operation }, seconds);
    },
    eventsAppended: (count) => appended.inc(count),
    numberedAfter: (seconds) => numbered.observe(seconds),
    webhookAttempt: (outcome) => attempts.inc({ outcome }),
    webhookCancelled: (count) => cancelled.inc(count),
    gauge: (name, help, read, labels = []) => {
      new Gauge({
        name,
        help,
        registers: [registry],
        labelNames: labels,
        async collect() {
          const value = await read();
          if (typeof value === 'number') {
            this.set(value);
            return;
          }
          this.reset();
          for (const [labels, v] of value) (this as unknown as Gauge<string>).set(labels, v);
        },
      });
    },
    counter: (name, help, read, labels = []) => {
      new Counter({
        name,
        help,
        registers: [registry],
        labelNames: labels,
        collect() {
          const value = read();
          this.reset();
          if (typeof value === 'number') this.inc(value);
          else for (const [labels, v] of value) (this as unknown as Counter<string>).inc(labels, v);
        },
      });
    },
  };
}
