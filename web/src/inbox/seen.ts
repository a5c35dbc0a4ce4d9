import { useSyncExternalStore } from 'react';
import type { Event } from '../client';
import { useInboxFeed } from '../live';
import { useSession } from '../session';

// "Unread" in the inbox: events newer than the cursor the member last saw,
// kept in this browser per member (the API keeps no read state). The badge
// and the inbox page read the same value; other tabs learn of a change by the
// `storage` event, this tab by its own listeners.

const key = (member: string) => `atrium.inbox.seen.${member}`;
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

function readSeen(member: string | null): number {
  if (member === null) return 0;
  try {
    const value = Number(localStorage.getItem(key(member)));
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  } catch {
    // Storage may be disabled: everything is then unread until the inbox is opened in this page.
    return 0;
  }
}

/** Records that `member` has seen everything up to `cursor` (never moves back). */
export function markSeen(member: string, cursor: number): void {
  if (cursor <= readSeen(member)) return;
  try {
    localStorage.setItem(key(member), String(cursor));
  } catch {
    return;
  }
  for (const listener of listeners) listener();
}

/** The signed-in member's inbox, with the cursor they last saw and what is newer. */
export function useInbox(): { member: string | null; events: Event[]; seen: number; unread: number; caughtUp: boolean; error: string | null } {
  const { state } = useSession();
  const member = state.status === 'signed-in' ? state.member.handle : null;
  const feed = useInboxFeed();
  const seen = useSyncExternalStore(subscribe, () => readSeen(member));
  const unread = member === null ? 0 : feed.events.filter((e) => e.cursor > seen).length;
  return { member, events: feed.events, seen, unread, caughtUp: feed.caughtUp, error: feed.error?.detail ?? null };
}
