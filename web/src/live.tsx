import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError, call, client, type Event } from './client';

// Live views follow the public feeds with their cursors, like any client:
// catch up page by page, then long-poll (`wait`), which the server answers as
// soon as an event of that feed commits on any node. Each new event marks the
// cached reads of its Space stale (React Query refetches what is on screen),
// and is handed to whoever listens (the activity timeline, the inbox).

/** The longest wait the feeds accept, in seconds. */
const WAIT_SECONDS = 25;
const PAGE = 500;
/** How many of the newest events a follower keeps for the pages that show them. */
const KEEP = 500;

type Page = { events: Event[]; cursor: number };
type Fetch = (since: number, wait: number, signal: AbortSignal) => Promise<Page>;

export interface Followed {
  /** The newest events read so far, oldest first (at most KEEP). */
  events: Event[];
  /** True once the follower has read up to the head and is waiting for new events. */
  caughtUp: boolean;
  /** The feed refused (403/404) or the server is unreachable; retrying continues. */
  error: ApiError | null;
}

const EMPTY: Followed = { events: [], caughtUp: false, error: null };

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
    setState(EMPTY);
    void (async () => {
      let since = 0;
      let caughtUp = false;
      let pause = 1000;
      while (!abort.signal.aborted) {
        try {
          const page = await latest.current.fetchPage(since, caughtUp ? WAIT_SECONDS : 0, abort.signal);
          pause = 1000;
          since = page.cursor;
          if (page.events.length > 0) kept = [...kept, ...page.events].slice(-KEEP);
          if (caughtUp) {
            if (page.events.length > 0) latest.current.onNew(page.events);
          } else if (page.events.length < PAGE) {
            caughtUp = true;
            // What is on screen was read while the follower was catching up: an event that
            // committed in between is in these pages but was never announced. Announce the
            // newest page once, so those reads are refreshed.
            if (page.events.length > 0) latest.current.onNew(page.events);
          }
          setState({ events: kept, caughtUp, error: null });
        } catch (err) {
          if (abort.signal.aborted) return;
          const apiError = err instanceof ApiError ? err : new ApiError(0, String(err));
          setState({ events: kept, caughtUp, error: apiError });
          if (apiError.status >= 400 && apiError.status < 500 && apiError.status !== 429) return;
          await new Promise((resolve) => setTimeout(resolve, pause));
          pause = Math.min(pause * 2, 30_000);
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
    (since, wait, signal) =>
      call(client.GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query: { since, limit: PAGE, wait } }, signal })),
    (events) => {
      void queries.invalidateQueries({ queryKey: ['space', slug] });
      if (events.some((e) => e.type.startsWith('space_'))) void queries.invalidateQueries({ queryKey: ['spaces'] });
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
    (since, wait, signal) => call(client.GET('/v0/me/inbox-events', { params: { query: { since, limit: PAGE, wait } }, signal })),
    () => void queries.invalidateQueries({ queryKey: ['inbox'] }),
  );
  return <InboxFeedContext.Provider value={followed}>{children}</InboxFeedContext.Provider>;
}

export function useInboxFeed(): Followed {
  return useContext(InboxFeedContext);
}
