import { useEffect, useState } from 'react';
import { errorText, type Event } from './client';
import type { Followed } from './live';

// A followed feed keeps only its newest events (live.tsx). Pages that show a
// feed's history read further back on request, a page at a time, with the
// feeds' `newest` and `before` (docs/protocol.md, "Starting from now").

/** Events of `a` and `b` together, once each, oldest first. */
export function merged(a: Event[], b: Event[]): Event[] {
  if (b.length === 0) return a;
  const byCursor = new Map<number, Event>();
  for (const event of [...a, ...b]) byCursor.set(event.cursor, event);
  return [...byCursor.values()].sort((x, y) => x.cursor - y.cursor);
}

export interface History {
  /** Every event seen while the page is open and every page read back, oldest first. */
  events: Event[];
  /** True while there may be older events than `events` holds. */
  olderLeft: boolean;
  loading: boolean;
  error: string;
  /** Reads the page below the oldest event held. */
  readOlder(): Promise<void>;
}

/**
 * A feed's history for one page: what the follower has read, kept even when
 * the follower drops its oldest (so no gap opens), plus pages read back with
 * `read(before)`, `step` events each. A page shorter than `step` is the
 * feed's first. Mount it under a key per feed, so one feed's history never
 * mixes with another's.
 */
export function useHistory(feed: Followed, step: number, read: (before: number) => Promise<{ events: Event[] }>): History {
  const [seen, setSeen] = useState<Event[]>([]);
  useEffect(() => setSeen((had) => merged(had, feed.events)), [feed.events]);
  const [reachedStart, setReachedStart] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState('');
  const olderLeft = feed.caughtUp && !feed.fromStart && !reachedStart;
  return {
    events: seen,
    olderLeft,
    loading,
    error,
    async readOlder() {
      const oldest = seen[0]?.cursor;
      if (!olderLeft || oldest === undefined) return;
      setLoading(true);
      setError('');
      try {
        const page = await read(oldest);
        setSeen((had) => merged(had, page.events));
        if (page.events.length < step) setReachedStart(true);
      } catch (err) {
        setError(errorText(err));
      } finally {
        setLoading(false);
      }
    },
  };
}
