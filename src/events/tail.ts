import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import { PageCache } from './page-cache.js';
import type { EventRoute } from './sequencer.js';

/**
 * What this node knows of the event log, and the one way anything in it waits
 * for new events (docs/events.md, "Following the log").
 *
 * The log is announced, then followed. An announcement says "every event up to
 * cursor N is committed and numbered": from this node's own commits (SQLite),
 * or from the sequencer (PostgreSQL, on whichever node leads). The follower
 * then reads the new events' routing columns once per batch (not their
 * payloads), keeps the newest cursor of each Space and of each member's inbox,
 * drops the kept feed pages a deleted message is in, and wakes whoever waits on them: long-polling feed readers today, webhook
 * delivery and the web app's live views tomorrow.
 *
 * Everything here is a hint that is only ever behind the database, never
 * ahead: a reader told "nothing new" by a head that lags is in the position of
 * one that polled a moment earlier, and no cursor it is handed can skip an
 * event. So a feed may answer an empty tail poll from these heads alone.
 */
export class EventTail {
  /** Newest cursor announced as committed and numbered. */
  private announced = 0;
  /** Newest cursor whose events the follower has read (≤ announced). */
  private followed = 0;
  private following: Promise<void> | undefined;
  private readonly spaceHeads = new Map<string, number>();
  private readonly inboxHeads = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private waiting = 0;
  private stopped = false;
  /** Pages this node served, kept while they are still what a read would answer (page-cache.ts). */
  readonly pages = new PageCache();

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Starts from the log as it is: everything already committed counts as followed. */
  async start(): Promise<void> {
    const head = await this.databaseHead();
    this.announced = Math.max(this.announced, head);
    this.followed = Math.max(this.followed, head);
  }

  /** The newest cursor this node has followed. */
  get head(): number {
    return this.followed;
  }

  /** Long-poll waiters right now (for /metrics). */
  get waiterCount(): number {
    return this.waiting;
  }

  /**
   * Events up to `cursor` are committed and numbered; resolves once the follower
   * has read them. `routes`, when the caller has them (the node that numbered
   * the batch), are those events' routing columns: if they continue exactly
   * where the follower stands, no query is needed.
   */
  async announce(cursor: number, routes?: readonly EventRoute[]): Promise<void> {
    if (cursor > this.announced) this.announced = cursor;
    if (routes && routes.length > 0 && !this.following && routes[0]!.cursor === this.followed + 1 && routes.at(-1)!.cursor === cursor) {
      const woken = this.observe(routes);
      this.followed = cursor;
      this.wake(woken);
      return;
    }
    await this.follow(cursor);
  }

  /** The database's newest cursor, read directly (for a `since` beyond what this node has followed). */
  async databaseHead(): Promise<number> {
    const row = await this.db.selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).executeTakeFirst();
    return Number(row?.head ?? 0);
  }

  /**
   * The newest cursor of a feed, as far as this node knows: `space:<slug>`,
   * `inbox:<handle>` or `host`. A key seen for the first time is read from the
   * database once; the follower keeps it current from then on.
   */
  async keyHead(key: string): Promise<number> {
    if (key === HOST_KEY) return this.followed;
    const [heads, lookup] = this.headsOf(key);
    const known = heads.get(lookup);
    if (known !== undefined) return known;
    const head = key.startsWith(SPACE_PREFIX)
      ? await this.db.selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).where('space', '=', lookup).executeTakeFirst()
      : await this.db
          .selectFrom('event_subjects')
          .select((eb) => eb.fn.max('cursor').as('head'))
          .where('subject', '=', `member:mentioned:${lookup}`)
          .executeTakeFirst();
    // The follower may have moved this key on while we read: keep the newer.
    const value = Math.max(Number(head?.head ?? 0), heads.get(lookup) ?? 0);
    heads.set(lookup, value);
    return value;
  }

  /**
   * Resolves when the follower sees an event of one of `keys` with a cursor
   * above `since`, or at `deadline` (epoch ms), or when the node stops. The
   * caller reads its feed again either way: an event may be one it may not see
   * (a direct message of others), and then it simply waits again. An aborted
   * `opts.signal` ends the wait too (the webhook worker, woken by other work).
   */
  async waitFor(keys: readonly string[], since: number, deadline: number, opts: WaitOptions = {}): Promise<void> {
    for (const key of keys) if ((await this.keyHead(key)) > since) return;
    if (this.stopped || Date.now() >= deadline || opts.signal?.aborted) return;
    await this.sleepUntil(keys, deadline, opts);
  }

  /** True once the node is stopping: nothing waits any more. */
  get isStopped(): boolean {
    return this.stopped;
  }

  private async sleepUntil(keys: readonly string[], deadline: number, { signal, background = false }: WaitOptions): Promise<void> {
    const counted = background ? 0 : 1;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        for (const key of keys) this.waiters.get(key)?.delete(wake);
        this.waiting -= counted;
        resolve();
      };
      signal?.addEventListener('abort', wake, { once: true });
      const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
      this.waiting += counted;
      for (const key of keys) {
        let set = this.waiters.get(key);
        if (!set) this.waiters.set(key, (set = new Set()));
        set.add(wake);
      }
    });
  }

  /** Wakes every waiter (shutdown: long polls answer with what they have). */
  stop(): void {
    this.stopped = true;
    for (const set of this.waiters.values()) for (const wake of [...set]) wake();
  }

  /** Reads announced events until `target` is followed; one reader at a time, shared by all who wait for it. */
  private async follow(target: number): Promise<void> {
    while (this.followed < Math.min(target, this.announced)) {
      if (!this.following) {
        this.following = this.readAnnounced().finally(() => {
          this.following = undefined;
        });
      }
      await this.following;
    }
  }

  private async readAnnounced(): Promise<void> {
    const upTo = this.announced;
    while (this.followed < upTo) {
      const rows = await this.db
        .selectFrom('events')
        .select(['cursor', 'space', 'subjects', 'type'])
        .where('cursor', '>', this.followed)
        .where('cursor', '<=', upTo)
        .orderBy('cursor')
        .limit(FOLLOW_BATCH)
        .execute();
      const woken = this.observe(rows.map((row) => ({ cursor: Number(row.cursor), space: row.space, subjects: row.subjects, type: row.type })));
      // Fewer rows than asked for: the rest of the range holds no event (SQLite leaves gaps on rollback).
      this.followed = rows.length < FOLLOW_BATCH ? upTo : Number(rows[rows.length - 1]!.cursor);
      this.wake(woken);
    }
  }

  /** Moves the heads past these events; returns the keys whose waiters to wake once `followed` says so too. */
  private observe(routes: readonly EventRoute[]): Set<string> {
    const woken = new Set<string>([HOST_KEY]);
    for (const route of routes) {
      if (route.space !== null) {
        this.spaceHeads.set(route.space, route.cursor);
        woken.add(SPACE_PREFIX + route.space);
      }
      for (const subject of JSON.parse(route.subjects) as string[]) {
        if (route.type === 'message_deleted' && subject.startsWith(MESSAGE_PREFIX)) this.pages.dropMessage(Number(subject.slice(MESSAGE_PREFIX.length)));
        if (!subject.startsWith(MENTIONED_PREFIX)) continue;
        const handle = subject.slice(MENTIONED_PREFIX.length);
        this.inboxHeads.set(handle, route.cursor);
        woken.add(INBOX_PREFIX + handle);
      }
    }
    return woken;
  }

  private wake(keys: Set<string>): void {
    for (const key of keys) for (const wake of [...(this.waiters.get(key) ?? [])]) wake();
  }

  private headsOf(key: string): [Map<string, number>, string] {
    if (key.startsWith(SPACE_PREFIX)) return [this.spaceHeads, key.slice(SPACE_PREFIX.length)];
    if (key.startsWith(INBOX_PREFIX)) return [this.inboxHeads, key.slice(INBOX_PREFIX.length)];
    throw new Error(`unknown feed key ${key}`);
  }
}

export interface WaitOptions {
  /** Ends the wait early when aborted. */
  signal?: AbortSignal;
  /** A service's own wait (the webhook worker), not a reader's long poll: not counted in `waiterCount`. */
  background?: boolean;
}

const FOLLOW_BATCH = 1000;
const HOST_KEY = 'host';
const SPACE_PREFIX = 'space:';
const INBOX_PREFIX = 'inbox:';
const MENTIONED_PREFIX = 'member:mentioned:';
const MESSAGE_PREFIX = 'message:';

/** The key a feed waits on. */
export const feedKeys = {
  host: HOST_KEY,
  space: (slug: string) => SPACE_PREFIX + slug,
  inbox: (handle: string) => INBOX_PREFIX + handle,
};
