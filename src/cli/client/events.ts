import { setTimeout as sleep } from 'node:timers/promises';
import { callOperation, type Target } from './api.js';
import { ApiError, ConnectionError } from './errors.js';
import { printJson, printTable, stopOnSignals, time, type Cell } from './output.js';

export interface FeedEvent {
  cursor: number;
  type: string;
  space: string | null;
  actor: string | null;
  subjects: string[];
  payload: Record<string, unknown>;
  created_ts: string;
}

export interface FeedPage {
  events: FeedEvent[];
  cursor: number;
}

export interface EventsOptions {
  since?: number;
  limit?: number;
  follow?: boolean;
  /** Seconds to wait after an empty page while following. */
  interval: number;
  json?: boolean;
}

const MAX_BACKOFF_SECONDS = 30;

/** Without a Space: the host-wide feed (protocol: Feeds), for a host-wide Owner/Host or the steward key. */
function feed(slug: string | undefined): { name: string; params: Record<string, string> } {
  return slug ? { name: 'list_event_page', params: { slug } } : { name: 'list_host_event_page', params: {} };
}

/** One set of columns for a page and a tail, so `events` and `events --follow` read alike. */
const EVENT_COLUMNS = ['CURSOR', 'TIME', 'TYPE', 'ACTOR', 'SUBJECTS'];

function row(e: FeedEvent): Cell[] {
  const via = typeof e.payload.via === 'string' ? `(${e.payload.via})` : null;
  return [e.cursor, time(e.created_ts), e.type, e.actor ?? via, e.subjects.join(' ')];
}

export async function listEvents(target: Target, slug: string | undefined, opts: EventsOptions): Promise<void> {
  if (opts.follow) return followFeed(target, { ...feed(slug), label: slug ?? 'the host-wide feed' }, opts);
  const { name, params } = feed(slug);
  const { body: page } = await callOperation<FeedPage>(target, name, { params, query: { since: opts.since, limit: opts.limit } });
  if (opts.json) return printJson(page);
  printTable(EVENT_COLUMNS, page.events.map(row), 'No events.');
  if (page.events.length > 0 && page.events.length === (opts.limit ?? 100)) {
    process.stderr.write(`More may follow: add --since ${page.cursor}\n`);
  }
}

/** A feed operation to tail (the inbox reuses this), and how to name it to the user. */
export interface FeedSource {
  name: string;
  params: Record<string, string>;
  label: string;
}

/**
 * Tails the feed until interrupted, resuming from each page's cursor (an
 * empty page keeps `since`, protocol: Cursors and paging). Lost connections and server errors
 * are retried with a growing pause, since a tail should outlive a restart;
 * any other refusal ends it.
 */
export async function followFeed(
  target: Target,
  { name, params, label }: FeedSource,
  opts: EventsOptions,
  line: (e: FeedEvent) => string = followLine,
): Promise<void> {
  const stopped = new AbortController();
  const release = stopOnSignals(stopped);
  if (process.stderr.isTTY) process.stderr.write(`Following ${label} on ${target.host}; Ctrl-C to stop.\n`);

  if (!opts.json && line === followLine) process.stdout.write(`${fixedWidths(EVENT_COLUMNS)}\n`);
  let cursor = opts.since ?? 0;
  let failures = 0;
  const pause = (seconds: number) => sleep(seconds * 1000, undefined, { signal: stopped.signal }).catch(() => {});
  try {
    while (!stopped.signal.aborted) {
      let page: FeedPage;
      try {
        page = (await callOperation<FeedPage>(target, name, {
          params,
          query: { since: cursor, limit: opts.limit },
          signal: stopped.signal,
        })).body;
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
      if (page.events.length === 0) await pause(opts.interval);
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
