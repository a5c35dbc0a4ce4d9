import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import type { Database, EventLogHooks } from '../storage/database.js';
import type { Appended } from './append.js';
import { PgListener } from './pg-listener.js';
import { parseAnnouncement, Sequencer, type SequencedBatch } from './sequencer.js';
import { EventTail } from './tail.js';

export interface EventLogOptions {
  log: Logger;
  metrics?: Metrics;
  /** How long a write waits for its events to be numbered before answering anyway. */
  sequenceWaitMs?: number;
  /** How often a node that does not lead tries to take over (failover time). */
  takeoverMs?: number;
  /** How often the leader looks for queued events nobody announced. */
  idleCheckMs?: number;
  /**
   * Host-wide notices other than the log's own, by topic, heard on the log's
   * listener connection (PostgreSQL): one connection per node carries them all.
   */
  topics?: Record<string, TopicListener>;
}

/** Who follows one topic of notices (topicChannel). */
export interface TopicListener {
  /** A notice on the topic arrived. */
  heard(): void;
  /** The listener connection came up (true) or went down (false): notices sent while it was down may never arrive. */
  hearing(live: boolean): void;
}

/** The event log as the rest of the node sees it: hooks for commits, the tail, and its running parts. */
export interface EventLog extends EventLogHooks {
  tail: EventTail;
  /** PostgreSQL: whether this node numbers events now. */
  readonly leading: boolean;
  stop(): Promise<void>;
}

/**
 * Starts the event log of one node (docs/events.md). SQLite: a commit numbers
 * its own events, and the tail follows them. PostgreSQL: a commit queues its
 * events; the node that holds the leader lock numbers them; every node hears
 * each numbered batch and follows it; a write answers once its events are
 * numbered, so the writer can read them back.
 */
export async function startEventLog(db: Database, opts: EventLogOptions): Promise<EventLog> {
  const tail = new EventTail(db.kysely);
  await tail.start();
  const metrics = opts.metrics ?? createMetrics(false);
  metrics.gauge('atrium_event_log_head', 'Newest event cursor this node has followed.', () => tail.head);
  metrics.gauge('atrium_feed_waiters', 'Feed readers waiting in a long poll on this node.', () => tail.waiterCount);
  if (db.dialect === 'sqlite' || !db.postgres) {
    const log: EventLog = {
      tail,
      leading: true,
      appended: (appended) => ({
        committed: async () => {
          if ('numbered' in appended && appended.numbered.length > 0) {
            metrics.eventsAppended(appended.numbered.length);
            // The routes let the tail skip reading the events back when nothing else wrote in between (another process may).
            await tail.announce(Math.max(...appended.numbered), appended.routes);
          }
        },
        abandoned: () => undefined,
      }),
      async stop() {
        tail.stop();
      },
    };
    db.eventLog = log;
    return log;
  }
  return startPostgresLog(db, db.postgres, tail, opts, metrics);
}

async function startPostgresLog(
  db: Database,
  postgres: NonNullable<Database['postgres']>,
  tail: EventTail,
  opts: EventLogOptions,
  metrics: Metrics,
): Promise<EventLog> {
  const schema = await postgres.schema();
  const channels = logChannels(schema);
  const topics = Object.entries(opts.topics ?? {});
  const hearing = (live: boolean): void => {
    for (const [, topic] of topics) topic.hearing(live);
  };
  const waitMs = opts.sequenceWaitMs ?? 10_000;
  const waiting = new Map<number, () => void>();

  const numbered = async (batch: Pick<SequencedBatch, 'head' | 'queued' | 'routes'>): Promise<void> => {
    // The follower reads the batch first, so a writer that answers after this reads its events from any feed of this node.
    await tail.announce(batch.head, batch.routes).catch((err: unknown) => opts.log.error({ err }, 'following the event log failed'));
    for (const [first, last] of batch.queued) {
      for (const [id, resolve] of waiting) if (id >= first && id <= last) resolve();
    }
  };

  const sequencer = new Sequencer({
    pool: postgres.pool,
    channel: channels.numbered,
    log: opts.log,
    idleCheckMs: opts.idleCheckMs ?? 1000,
    onBatch: (batch) => void numbered(batch),
  });

  /** Waiters whose events were numbered while no announcement could reach this node. */
  const recheckWaiters = async (): Promise<void> => {
    const ids = [...waiting.keys()];
    if (ids.length === 0) return;
    const still = await db.kysely.selectFrom('pending_events').select('id').where('id', 'in', ids).execute();
    const queued = new Set(still.map((row) => Number(row.id)));
    await tail.announce(await tail.databaseHead());
    for (const id of ids) if (!queued.has(id)) waiting.get(id)?.();
  };

  const listener = new PgListener({
    connect: () => postgres.connect(),
    log: opts.log,
    leaderLockNamespace: LEADER_LOCK_NAMESPACE,
    channels: {
      [channels.numbered]: (payload) => {
        const batch = parseAnnouncement(payload);
        if (!batch) return;
        // The leader's own batch reaches the tail with its routes when its cycle
        // returns (onBatch); the notice often arrives first, and following it
        // would read back the events the cycle is about to hand over.
        if (sequencer.leading) void sequencer.settled().then(() => numbered(batch));
        else void numbered(batch);
      },
      [channels.queued]: () => {
        if (sequencer.leading) sequencer.wake();
      },
      ...Object.fromEntries(topics.map(([name, topic]) => [topicChannel(schema, name), () => topic.heard()])),
    },
    onConnected: () => {
      hearing(true);
      void recheckWaiters().catch((err: unknown) => opts.log.warn({ err }, 'event log resync failed'));
    },
    onDisconnected: () => {
      hearing(false);
    },
    onLeadershipLost: () => void sequencer.stop(),
  });
  await listener.start();

  let electing: NodeJS.Timeout | undefined;
  const elect = async (): Promise<void> => {
    if (!sequencer.leading && (await listener.tryLead())) {
      opts.log.info('this node now numbers events (event log leader)');
      sequencer.lead();
    }
  };
  await elect();
  metrics.gauge('atrium_event_log_leader', '1 while this node numbers events (PostgreSQL).', () => (sequencer.leading ? 1 : 0));
  metrics.gauge('atrium_event_log_queued', 'Committed events waiting to be numbered (PostgreSQL; the whole host).', async () =>
    Number((await db.kysely.selectFrom('pending_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  );
  metrics.gauge('atrium_event_log_oldest_queued_seconds', 'Age of the oldest event waiting to be numbered: the ordering lag (PostgreSQL).', async () => {
    const row = await db.kysely.selectFrom('pending_events').select((eb) => eb.fn.min('created_ts').as('oldest')).executeTakeFirst();
    return row?.oldest ? Math.max(0, (Date.now() - Date.parse(row.oldest)) / 1000) : 0;
  });
  metrics.gauge(
    'atrium_db_pool_connections',
    'PostgreSQL pool connections of this node, by state (waiting: requests queued for one).',
    () => [
      [{ state: 'total' }, postgres.pool.totalCount],
      [{ state: 'idle' }, postgres.pool.idleCount],
      [{ state: 'waiting' }, postgres.pool.waitingCount],
    ],
    ['state'],
  );
  electing = setInterval(() => void elect(), opts.takeoverMs ?? 1000);
  electing.unref();

  const log: EventLog = {
    tail,
    get leading() {
      return sequencer.leading;
    },
    appended(appended: Appended) {
      const ids = 'queued' in appended ? appended.queued : [];
      const done = ids.map((id) => new Promise<void>((resolve) => waiting.set(id, resolve)));
      const forget = () => {
        for (const id of ids) waiting.delete(id);
      };
      return {
        committed: async () => {
          if (ids.length === 0) return;
          metrics.eventsAppended(ids.length);
          const committedAt = performance.now();
          if (sequencer.leading) sequencer.wake();
          else listener.notice(channels.queued);
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), waitMs);
          });
          const outcome = await Promise.race([Promise.all(done), timeout]);
          clearTimeout(timer);
          forget();
          metrics.numberedAfter((performance.now() - committedAt) / 1000);
          // The write is committed either way; its events are numbered when a leader runs again.
          if (outcome === 'timeout') opts.log.warn({ queued: ids }, `events not numbered within ${waitMs} ms; answering anyway`);
        },
        abandoned: forget,
      };
    },
    async stop() {
      clearInterval(electing);
      electing = undefined;
      await sequencer.stop();
      await listener.stop();
      tail.stop();
    },
  };
  db.eventLog = log;
  return log;
}

/** The notification channels of one host's log (one PostgreSQL schema): numbered batches and queued events. */
export function logChannels(schema: string): { numbered: string; queued: string } {
  return { numbered: topicChannel(schema, 'numbered'), queued: topicChannel(schema, 'queued') };
}

/**
 * The channel of one topic of one host's notices. Triggers announce some
 * topics themselves (`credentials`, migration 0017), deriving the same name.
 */
export function topicChannel(schema: string, topic: string): string {
  return `atrium_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}_${topic}`;
}

/** "ATRL": the session lock held by the node that numbers events. */
const LEADER_LOCK_NAMESPACE = 0x4154524c;
