import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../shared/schemas.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Seconds = (description: string) => Type.Number({ minimum: 0, description });

/** What a node reads of itself every ten seconds (src/operator/sampler.ts). */
export const NodeSample = Type.Object(
  {
    ts: Timestamp,
    node: Type.String({ description: 'The node: its host name and process id, and when it started.' }),
    leading: Type.Boolean({ description: 'This node numbers events (PostgreSQL; always on SQLite) and runs the janitor.' }),
    ready: Type.Boolean({ description: 'What `/readyz` would answer: the database answers and the node is not shutting down or refusing writes.' }),
    head: Count('The newest event cursor this node has followed.'),
    events_per_second: Seconds('Events appended host-wide per second since the previous sample (the head’s advance).'),
    requests_per_second: Seconds('API requests this node answered per second since the previous sample.'),
    errors: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Error answers since the previous sample, by `Atrium-Error` code.' }),
    long_poll_waiters: Count('Feed readers waiting in a long poll on this node.'),
    webhook_queue_depth: Count('Webhook deliveries pending on the host.'),
    oldest_owed_wake_seconds: Seconds('Age of the oldest wake owed and not yet delivered on the host (0 when none).'),
    db_pool: Type.Union([Type.Object({ total: Count('Connections open.'), idle: Count('Idle.'), waiting: Count('Queries waiting for a connection.') }), Type.Null()], {
      description: 'The node’s PostgreSQL pool; null on SQLite (one connection).',
    }),
    janitor: Type.Union(
      [
        Type.Object({
          started_ts: Timestamp,
          finished_ts: Timestamp,
          removed: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Rows removed, by table.' }),
          skipped: Type.Array(Type.String(), { description: 'Tables another node was sweeping.' }),
        }),
        Type.Null(),
      ],
      { description: 'The last janitor run on this node; null until one ran.' },
    ),
  },
  { additionalProperties: false, description: 'One node’s readings at one moment.' },
);
export type NodeSample = Static<typeof NodeSample>;

export const OperatorStatus = Type.Object(
  {
    now: Timestamp,
    nodes: Type.Array(
      Type.Object({
        node: Type.String(),
        first_seen_ts: Timestamp,
        last_seen_ts: Timestamp,
        leading: Type.Boolean(),
        ready: Type.Boolean(),
        current: Type.Boolean({ description: 'Sampled within the last 30 seconds: the node is running.' }),
      }),
      { description: 'Every node that sampled itself in the last half hour, newest first.' },
    ),
    samples: Type.Array(NodeSample, { description: 'The last half hour of samples, all nodes, oldest first.' }),
    tables: Type.Array(Type.Object({ name: Type.String(), bytes: Type.Integer({ minimum: 0 }) }), { description: 'The largest tables and indexes, largest first.' }),
    errors: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Error answers of the last hour on every node, by code.' }),
    janitor: Type.Union([NodeSample.properties.janitor.anyOf[0]!, Type.Null()], { description: 'The janitor’s newest run on any node.' }),
  },
  { additionalProperties: false },
);
