import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { call, client, type Event } from '../api/client';
import { useInboxFeed } from '../api/live';
import { useSession } from '../api/session';
import { rootKeys } from '../api/keys';

// "Unread" in the inbox: events newer than the member's read mark, which the
// host keeps (`GET/POST /v0/me/inbox-read`), so every device and tab agrees.
// The mark only moves forward. It is read again whenever the inbox feed brings
// something (its key is under ['inbox']) and when the window regains focus, so
// what was read on another device stops counting here too.

const READ_MARK = [...rootKeys.inbox, 'read-mark'] as const;

function useReadMark(member: string | null) {
  return useQuery({
    queryKey: READ_MARK,
    enabled: member !== null,
    refetchOnWindowFocus: true,
    queryFn: async () => (await call(client.GET('/v0/me/inbox-read'))).cursor,
  });
}

/** Marks the inbox read up to a cursor (never back), and updates every view of it. */
export function useMarkSeen(): (cursor: number) => Promise<void> {
  const queries = useQueryClient();
  return useCallback(
    async (cursor: number) => {
      const current = queries.getQueryData<number>(READ_MARK);
      if (current !== undefined && cursor <= current) return;
      const mark = await call(client.POST('/v0/me/inbox-read', { body: { cursor } }));
      // A read of the mark that started before this one moved it would answer the old mark.
      await queries.cancelQueries({ queryKey: READ_MARK });
      queries.setQueryData(READ_MARK, mark.cursor);
    },
    [queries],
  );
}

/** The signed-in member's inbox, with their read mark (null while it loads) and what is newer. */
export function useInbox(): { member: string | null; events: Event[]; seen: number | null; unread: number; caughtUp: boolean; error: string | null } {
  const { state } = useSession();
  const member = state.status === 'signed-in' ? state.member.handle : null;
  const feed = useInboxFeed();
  const mark = useReadMark(member);
  const seen = mark.data ?? null;
  const unread = member === null || seen === null ? 0 : feed.events.filter((e) => e.cursor > seen).length;
  return { member, events: feed.events, seen, unread, caughtUp: feed.caughtUp, error: feed.error?.detail ?? null };
}
