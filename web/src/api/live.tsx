import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError, call, client, type Event } from './client';
import { rootKeys } from './keys';

// Live views follow the public feeds with their cursors, like any client:
// start with the newest events (`newest`, which also hands out the cursor to
// follow on from, so a long feed is never read from its start), then
// long-poll (`wait`), which the server answers as soon as an event of that
// feed commits on any node. Each new event marks the cached reads of its
// Space stale (React Query refetches what is on screen), and is handed to
// whoever listens (the activity timeline, the inbox).

/** The longest wait the feeds accept, in seconds. */
const WAIT_SECONDS = 25;
/** How many of the newest events a follower reads first, and keeps for the pages that show them. */
const KEEP = 500;

type Page = { events: Event[]; cursor: number };
/** Where a read starts: the newest events as of now, or those after a cursor (waiting up to `wait` seconds for one). */
type From = { newest: number } | { since: number; wait: number };
/** A page, and how many seconds the host asked us to wait before the next poll (it did not hold this one). */
type Read = { page: Page; retryAfter: number | undefined };
type Fetch = (from: From, signal: AbortSignal) => Promise<Read>;

/** Reads one feed page with `call`, keeping the answer's `Retry-After`. */
async function readPage(request: Promise<{ data?: Page; error?: unknown; response: Response }>): Promise<Read> {
  let response: Response | undefined;
  const page = await call(
    request.then((result) => {
      response = result.response;
      return result;
    }),
  );
  const header = response?.headers.get('retry-after') ?? '';
  return { page, retryAfter: /^\d+$/.test(header) ? Number(header) : undefined };
}

/** Resolves after `ms`, or at once when the follower stops. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export interface Followed {
  /** The newest events read so far, oldest first (at most KEEP). */
  events: Event[];
  /** True once the follower has read the newest events and is waiting for new ones. */
  caughtUp: boolean;
  /** True while `events` reach back to the feed's first event: nothing older is left to read. */
  fromStart: boolean;
  /** The feed refused (403/404) or the server is unreachable; retrying continues. */
  error: ApiError | null;
}

const EMPTY: Followed = { events: [], caughtUp: false, fromStart: false, error: null };

/**
 * Follows one feed while mounted. A refusal (403/404: not allowed to read
 * this Space) stops it; a network failure is retried with a growing pause.
 */
function useFollow(key: string | null, fetchPage: Fetch, onNew: (events: Event[]) => void): Followed {
  const [state, setState] = useState<Followed>(EMPTY);
  const latest = useRef({ fetchPage, onNew });
  latest.current = { fetchPage, onNew };

  useEffect(() => {
    if (key === null) return;
    const abort = new AbortController();
    let kept: Event[] = [];
    let fromStart = false;
    setState(EMPTY);
    void (async () => {
      let since: number | null = null;
      let backoff = 1000;
      while (!abort.signal.aborted) {
        try {
          const from: From = since === null ? { newest: KEEP } : { since, wait: WAIT_SECONDS };
          const { page, retryAfter } = await latest.current.fetchPage(from, abort.signal);
          backoff = 1000;
          // The first page is announced too: what is on screen was read around the same
          // moment, and an event that committed in between must refresh it.
          if (page.events.length > 0) latest.current.onNew(page.events);
          // A first page short of KEEP is the whole feed; once events are dropped to keep KEEP, it no longer is.
          if (since === null) fromStart = page.events.length < KEEP;
          else if (kept.length + page.events.length > KEEP) fromStart = false;
          since = page.cursor;
          if (page.events.length > 0) kept = [...kept, ...page.events].slice(-KEEP);
          setState({ events: kept, caughtUp: true, fromStart, error: null });
          // The host did not hold this poll (this browser already holds its share of long polls): ask again when it says.
          if (retryAfter !== undefined) await pause(retryAfter * 1000, abort.signal);
        } catch (err) {
          if (abort.signal.aborted) return;
          const apiError = err instanceof ApiError ? err : new ApiError(0, String(err));
          setState({ events: kept, caughtUp: since !== null, fromStart, error: apiError });
          if (apiError.status >= 400 && apiError.status < 500 && apiError.status !== 429) return;
          await pause(backoff, abort.signal);
          backoff = Math.min(backoff * 2, 30_000);
        }
      }
    })();
    return () => abort.abort();
  }, [key]);

  return state;
}

const SpaceFeedContext = createContext<Followed>(EMPTY);

/**
 * Follows a Space's feed for everything rendered inside it. New events mark
 * this Space's cached reads stale (`['space', slug, …]` keys) and, for events
 * that change who belongs where, the Space list too.
 */
export function SpaceFeedProvider({ slug, children }: { slug: string; children: ReactNode }) {
  const queries = useQueryClient();
  const followed = useFollow(
    `space:${slug}`,
    (from, signal) => readPage(client.GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query: { ...from, limit: KEEP } }, signal })),
    (events) => {
      void queries.invalidateQueries({ queryKey: rootKeys.space(slug) });
      if (events.some((e) => e.type.startsWith('space_'))) void queries.invalidateQueries({ queryKey: rootKeys.spaceList });
    },
  );
  return <SpaceFeedContext.Provider value={followed}>{children}</SpaceFeedContext.Provider>;
}

/** The Space feed as followed by the enclosing SpaceFeedProvider. */
export function useSpaceFeed(): Followed {
  return useContext(SpaceFeedContext);
}

const InboxFeedContext = createContext<Followed>(EMPTY);

/**
 * Follows the signed-in member's inbox feed (mentions and direct messages
 * across Spaces) for the whole app while someone is signed in; `null` stops it.
 */
export function InboxFeedProvider({ member, children }: { member: string | null; children: ReactNode }) {
  const queries = useQueryClient();
  const followed = useFollow(
    member === null ? null : `inbox:${member}`,
    (from, signal) => readPage(client.GET('/v0/me/inbox-events', { params: { query: { ...from, limit: KEEP } }, signal })),
    () => void queries.invalidateQueries({ queryKey: rootKeys.inbox }),
  );
  return <InboxFeedContext.Provider value={followed}>{children}</InboxFeedContext.Provider>;
}

export function useInboxFeed(): Followed {
  return useContext(InboxFeedContext);
}
