import { setTimeout as sleep } from 'node:timers/promises';
import { send, type Api, type Outcome, type Query, type Schemas, type Target } from './api.js';
import type { Command } from 'commander';
import { nonNegativeInteger, positiveInteger, seconds } from './command-kit.js';
import { ApiError, ConnectionError, usageError } from './errors.js';
import { printJson, printTable, stopOnSignals, time, type Cell } from './output.js';

export type FeedEvent = Schemas['Event'];
export type FeedPage = Schemas['FeedPage'];
/** What every feed takes: a page after a cursor, the newest (perhaps before a cursor), a long poll. */
export type FeedQuery = Query<'list_event_page'>;

/** A feed to read or tail, and how to name it to the user. The inbox and `webhooks listen` read feeds too. */
export interface FeedSource {
  label: string;
  read(api: Api, query: FeedQuery, signal?: AbortSignal): Promise<Outcome<FeedPage>>;
}

/** The fields of an event's payload, whatever its type, for columns that show what is there. */
export function payloadOf(e: FeedEvent): Record<string, unknown> {
  return e.payload as Record<string, unknown>;
}

export interface EventsOptions {
  since?: number;
  limit?: number;
  /** The newest this many instead of the events after `since`. */
  newest?: number;
  /** With `newest`: the newest below this cursor, to read further back. */
  before?: number;
  follow?: boolean;
  /** Seconds to pause after an empty long poll while following. */
  interval: number;
  json?: boolean;
}

const MAX_BACKOFF_SECONDS = 30;
/** How long one request of a tail waits for an event (the feeds' `wait`; at most 30). */
const LONG_POLL_SECONDS = 25;

/** The options every feed command takes (`events`, `inbox`): one page, or a tail. */
export function feedOptions(command: Command): Command {
  return command
    .option('--since <cursor>', 'only events after this cursor (exclusive)', nonNegativeInteger)
    .option('--limit <n>', 'events per page (1-500, default 100)', positiveInteger)
    .option('--newest <n>', 'the newest N events instead (1-500); with --follow, then the new ones', positiveInteger)
    .option('--before <cursor>', 'with --newest: the newest N before this cursor, to read further back', positiveInteger)
    .option('-f, --follow', 'keep printing new events as they happen (Ctrl-C to stop)')
    .option('--interval <seconds>', 'with --follow: pause after a long poll that brought nothing', seconds, 0);
}

/** One page's query from the options: the newest (perhaps before a cursor), or after `since`. */
function pageQuery(opts: EventsOptions): FeedQuery {
  if (opts.newest !== undefined) return { newest: opts.newest, before: opts.before, since: opts.since, limit: opts.limit };
  if (opts.before !== undefined) throw usageError('--before reads back from the newest events: add --newest N');
  return { since: opts.since, limit: opts.limit };
}

/** Without a Space: the host-wide feed (protocol: Feeds), for a host-wide Owner/Host or the steward key. */
function feed(slug: string | undefined): FeedSource {
  if (slug === undefined) return { label: 'the host-wide feed', read: (api, query, signal) => api.GET('/v0/events', { params: { query }, signal }) };
  return { label: slug, read: (api, query, signal) => api.GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query }, signal }) };
}

/** One set of columns for a page and a tail, so `events` and `events --follow` read alike. */
const EVENT_COLUMNS = ['CURSOR', 'TIME', 'TYPE', 'ACTOR', 'SUBJECTS'];

function row(e: FeedEvent): Cell[] {
  const via = payloadOf(e).via;
  const how = typeof via === 'string' ? `(${via})` : null;
  return [e.cursor, time(e.created_ts), e.type, e.actor ?? how, e.subjects.join(' ')];
}

export async function listEvents(target: Target, slug: string | undefined, opts: EventsOptions): Promise<void> {
  if (opts.follow) return followFeed(target, feed(slug), opts);
  const page = await readPage(target, feed(slug), opts);
  if (opts.json) return printJson(page);
  printTable(EVENT_COLUMNS, page.events.map(row), 'No events.');
  pagingHint(page, opts);
}

/** One page of a feed as the options ask for it. */
export async function readPage(target: Target, source: FeedSource, opts: EventsOptions): Promise<FeedPage> {
  return (await send(target, (api) => source.read(api, pageQuery(opts)))).body;
}

/** On stderr, how to read on from a full page: forward from its cursor, or further back before its first event. */
export function pagingHint(page: FeedPage, opts: EventsOptions): void {
  if (opts.newest !== undefined) {
    if (page.events.length === opts.newest) process.stderr.write(`Older ones may exist: add --before ${page.events[0]!.cursor}\n`);
  } else if (page.events.length > 0 && page.events.length === (opts.limit ?? 100)) {
    process.stderr.write(`More may follow: add --since ${page.cursor}\n`);
  }
}

/**
 * Tails the feed until interrupted, resuming from each page's cursor (an
 * empty page keeps `since`, protocol: Cursors and paging). Each request is a
 * long poll (`wait`): the host answers as soon as an event of the feed
 * commits, so a tail shows it at once and asks again only when something
 * came or the wait ran out; an answer with `Retry-After` (a poll the host
 * did not hold) is followed by that pause. With `--newest`, it starts from the newest events
 * rather than from `--since`. Lost connections and server errors are retried
 * with a growing pause, since a tail should outlive a restart; any other
 * refusal ends it.
 */
export async function followFeed(
  target: Target,
  source: FeedSource,
  opts: EventsOptions,
  line: (e: FeedEvent) => string = followLine,
): Promise<void> {
  if (opts.before !== undefined) throw usageError('--before reads back; a tail follows what comes next: leave one out');
  if (opts.newest !== undefined && opts.since !== undefined) throw usageError('--newest starts at the newest events, --since at a cursor: choose one');
  const stopped = new AbortController();
  const release = stopOnSignals(stopped);
  if (process.stderr.isTTY) process.stderr.write(`Following ${source.label} on ${target.host}; Ctrl-C to stop.\n`);

  if (!opts.json && line === followLine) process.stdout.write(`${fixedWidths(EVENT_COLUMNS)}\n`);
  let cursor = opts.since ?? 0;
  let first = opts.newest !== undefined;
  let failures = 0;
  const pause = (seconds: number) => sleep(seconds * 1000, undefined, { signal: stopped.signal }).catch(() => {});
  try {
    while (!stopped.signal.aborted) {
      let page: FeedPage;
      let comeBackAfter: number | undefined;
      try {
        const query: FeedQuery = first ? { newest: opts.newest } : { since: cursor, limit: opts.limit, wait: LONG_POLL_SECONDS };
        ({ body: page, retryAfter: comeBackAfter } = await send(target, (api) => source.read(api, query, stopped.signal)));
        first = false;
        failures = 0;
      } catch (err) {
        if (stopped.signal.aborted) break;
        const transient = err instanceof ConnectionError || (err instanceof ApiError && (err.status >= 500 || err.status === 429));
        if (!transient) throw err;
        failures += 1;
        const wait = Math.min(MAX_BACKOFF_SECONDS, opts.interval * 2 ** failures);
        process.stderr.write(`atrium: ${(err as Error).message}; retrying in ${wait} s\n`);
        await pause(wait);
        continue;
      }
      for (const e of page.events) process.stdout.write(opts.json ? `${JSON.stringify(e)}\n` : `${line(e)}\n`);
      cursor = page.cursor;
      // The host did not hold the poll (this client holds its share of long polls already): it says when to ask again.
      if (comeBackAfter !== undefined) await pause(comeBackAfter);
      else if (page.events.length === 0 && opts.interval > 0) await pause(opts.interval);
    }
  } finally {
    release();
  }
}

/** A stream cannot be aligned after the fact, so columns have fixed widths (long values push the rest right). */
function followLine(e: FeedEvent): string {
  return fixedWidths(row(e));
}

function fixedWidths(cells: Cell[]): string {
  const widths = [7, 20, 26, 16];
  return cells
    .map((value, i) => {
      const text = value === null || value === undefined || value === '' ? '-' : String(value);
      return i < widths.length ? text.padEnd(widths[i]!) : text;
    })
    .join('  ')
    .trimEnd();
}
