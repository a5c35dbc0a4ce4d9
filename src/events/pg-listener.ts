import type pg from 'pg';
import type { Logger } from 'pino';

export interface ListenerOptions {
  connect(): Promise<pg.Client>;
  log: Logger;
  /** Channel → handler. */
  channels: Record<string, (payload: string) => void>;
  /** The session advisory lock whose holder leads, as `(namespace, hashtext(current_schema()))`. */
  leaderLockNamespace: number;
  /** Called after every (re)connection: notifications may have been missed while down. */
  onConnected(): void;
  /** Called when leadership is lost with the connection. */
  onLeadershipLost(): void;
  /** Called when the connection is lost: notifications sent from now until onConnected may never arrive. */
  onDisconnected?(): void;
}

/**
 * One PostgreSQL connection of this node's own, outside the pool, for what
 * must outlive a query: LISTEN for announcements, the session advisory lock
 * whose holder is the sequencing leader, and short notices sent outside any
 * writer's transaction.
 *
 * A notice is never sent from inside a writing transaction: a transaction that
 * NOTIFYs takes a cluster-wide lock at commit, which would put every writer
 * back in one commit line. Notices go here, in their own tiny transactions with
 * `synchronous_commit = off` (a notice is not data worth a disk flush), at
 * most one in flight, coalescing whatever asks meanwhile.
 */
export class PgListener {
  private client: pg.Client | undefined;
  private closed = false;
  private leader = false;
  private notices = new Map<string, { inFlight: boolean; again: boolean }>();
  private reconnecting: Promise<void> | undefined;

  constructor(private readonly opts: ListenerOptions) {}

  async start(): Promise<void> {
    await this.connect();
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Tries to become the leader; true while this node holds the lock. */
  async tryLead(): Promise<boolean> {
    if (this.leader) return true;
    const client = this.client;
    if (!client) return false;
    try {
      const result = await client.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_lock(${this.opts.leaderLockNamespace}, hashtext(current_schema())) AS locked`,
      );
      this.leader = result.rows[0]?.locked === true;
    } catch {
      this.leader = false;
    }
    return this.leader;
  }

  /** Sends `payload` on `channel` soon; notices asked for while one is in flight are sent as one more. */
  notice(channel: string, payload = ''): void {
    const state = this.notices.get(channel) ?? { inFlight: false, again: false };
    this.notices.set(channel, state);
    if (state.inFlight) {
      state.again = true;
      return;
    }
    state.inFlight = true;
    const send = async (): Promise<void> => {
      do {
        state.again = false;
        await this.client?.query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);
      } while (state.again && !this.closed);
      state.inFlight = false;
    };
    void send();
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.reconnecting;
    const client = this.client;
    this.client = undefined;
    if (this.leader) {
      this.leader = false;
      await client?.query(`SELECT pg_advisory_unlock(${this.opts.leaderLockNamespace}, hashtext(current_schema()))`).catch(() => undefined);
    }
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = await this.opts.connect();
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.payload !== undefined) this.opts.channels[message.channel]?.(message.payload);
    });
    await client.query('SET synchronous_commit = off');
    for (const channel of Object.keys(this.opts.channels)) await client.query(`LISTEN "${channel}"`);
    this.client = client;
    this.opts.onConnected();
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.opts.onDisconnected?.();
    if (this.leader) {
      this.leader = false;
      this.opts.onLeadershipLost();
    }
    this.opts.log.warn({ err }, 'event log listener connection lost; reconnecting');
    this.reconnecting = this.reconnect().finally(() => {
      this.reconnecting = undefined;
    });
  }

  private async reconnect(): Promise<void> {
    for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 5000)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.closed) return;
      try {
        await this.connect();
        return;
      } catch (err) {
        this.opts.log.warn({ err }, 'event log listener could not reconnect');
      }
    }
  }
}
