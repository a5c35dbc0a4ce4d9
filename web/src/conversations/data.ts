import { useInfiniteQuery, useQuery, type InfiniteData } from '@tanstack/react-query';
import { call, client, type Schemas, type Space } from '../api/client';
import { rootKeys } from '../api/keys';
import type { useStanding } from '../api/standing';
import { MEMBER_PAGE, spaceMembersPage } from '../members/space-members';

// The reads behind channels and direct messages. Every key is under
// ['space', slug, 'conversations', …], so the Space feed follower refreshes
// them whenever an event of the Space commits (a new message included), and
// they never share a cache entry with another page's differently shaped read.

export type Message = Schemas['Message'];
export type Channel = Schemas['Channel'];
type Standing = ReturnType<typeof useStanding>;

/** Messages per page: the API's default, enough to fill a tall screen. */
export const PAGE = 50;

const all = (slug: string) => [...rootKeys.space(slug), 'conversations'] as const;

export const conversationKeys = {
  all,
  channels: (slug: string) => [...all(slug), 'channels'] as const,
  directs: (slug: string) => [...all(slug), 'directs'] as const,
  members: (slug: string) => [...all(slug), 'members'] as const,
  channel: (slug: string, name: string) => [...all(slug), 'channel', name] as const,
  direct: (slug: string, handle: string) => [...all(slug), 'direct', handle] as const,
  thread: (slug: string, root: number) => [...all(slug), 'thread', root] as const,
  located: (slug: string, id: number) => [...all(slug), 'located', id] as const,
  readMarks: (slug: string) => [...all(slug), 'read-marks'] as const,
};

export function useChannels(slug: string) {
  return useQuery({
    queryKey: conversationKeys.channels(slug),
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/channels', { params: { path: { slug } } }))).channels,
  });
}

/** The caller's own direct conversations here, the most recently active first (members only). */
export function useDirectConversations(slug: string, enabled: boolean) {
  return useQuery({
    queryKey: conversationKeys.directs(slug),
    enabled,
    queryFn: async () =>
      (await call(client.GET('/v0/spaces/{slug}/direct-messages', { params: { path: { slug }, query: { limit: 200 } } }))).conversations,
  });
}

/**
 * Handles of the Space's admitted members: who the composer offers to mention
 * and to write to. Read a page at a time up to SUGGESTED_MEMBERS: in a Space
 * larger than that, the rest can still be typed out in full.
 */
export function useSpaceMemberHandles(slug: string, enabled = true) {
  return useQuery({
    queryKey: conversationKeys.members(slug),
    enabled,
    queryFn: async () => {
      const handles: string[] = [];
      for (;;) {
        const members = await spaceMembersPage(slug, 'admitted', handles.at(-1));
        handles.push(...members.map((m) => m.member));
        if (members.length < MEMBER_PAGE || handles.length >= SUGGESTED_MEMBERS) return handles;
      }
    },
  });
}

/** Most members the composer reads to suggest. */
const SUGGESTED_MEMBERS = 1_000;

export type Conversation = { kind: 'channel'; name: string } | { kind: 'direct'; handle: string };

/**
 * One conversation's history as pages, newest first as the API lists them;
 * each older page starts below the oldest id already held (`before`).
 */
export function useHistory(slug: string, conversation: Conversation, enabled = true) {
  return useInfiniteQuery({
    queryKey: conversation.kind === 'channel' ? conversationKeys.channel(slug, conversation.name) : conversationKeys.direct(slug, conversation.handle),
    enabled,
    initialPageParam: undefined as number | undefined,
    queryFn: async ({ pageParam }) => {
      const query = { limit: PAGE, ...(pageParam === undefined ? {} : { before: pageParam }) };
      const list =
        conversation.kind === 'channel'
          ? await call(
              client.GET('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel: conversation.name }, query } }),
            )
          : await call(client.GET('/v0/spaces/{slug}/direct-messages/{handle}', { params: { path: { slug, handle: conversation.handle }, query } }));
      return list.messages;
    },
    // A short page is the last one: nothing older remains.
    getNextPageParam: (last) => (last.length < PAGE ? undefined : last[last.length - 1]?.id),
  });
}

/**
 * Whether the signed-in member may post here, and if not, why, in the words a
 * person needs. Mirrors the server's action gate (`requireAct` in
 * src/spaces/admission.ts) and the rule that content needs an active Space;
 * the server still judges every post.
 */
export function postingRule(space: Space, standing: Standing): { allowed: true } | { allowed: false; reason: 'sign-in' | string } {
  if (standing.me === null) return { allowed: false, reason: 'sign-in' };
  if (space.status !== 'active') return { allowed: false, reason: `This Space is ${space.status}: nothing can be posted in it.` };
  if (standing.membership === 'admitted' || standing.ownerOrHost) return { allowed: true };
  if (standing.membership === 'removed') return { allowed: false, reason: 'You were removed from this Space: an Owner or Host must invite you back before you can post.' };
  if (space.join_policy === 'open') return { allowed: true };
  if (standing.membership === 'requested') return { allowed: false, reason: 'Your request to join is waiting for an Owner or Host. You can post once you are admitted.' };
  if (standing.membership === 'invited') return { allowed: false, reason: 'You have been invited: accept the invitation on the front page to post.' };
  return { allowed: false, reason: 'Join this Space to post: ask to join on its front page.' };
}

type ThreadPage = Schemas['Thread'];

/**
 * A thread as pages, newest reply first as the API lists them (`before` pages back); the
 * root comes with every page. Two views of one cached read: the replies, in the shape a
 * conversation's history has, and the root as the newest page tells it (its reply count).
 */
function useThreadPages<T>(slug: string, root: number, select: (data: InfiniteData<ThreadPage, number | undefined>) => T) {
  return useInfiniteQuery({
    queryKey: conversationKeys.thread(slug, root),
    initialPageParam: undefined as number | undefined,
    queryFn: async ({ pageParam }) => {
      const query = { limit: PAGE, ...(pageParam === undefined ? {} : { before: pageParam }) };
      return await call(client.GET('/v0/spaces/{slug}/messages/{id}/thread', { params: { path: { slug, id: root }, query } }));
    },
    getNextPageParam: (last) => (last.replies.length < PAGE ? undefined : last.replies[last.replies.length - 1]?.id),
    select,
  });
}

export function useThreadReplies(slug: string, root: number) {
  return useThreadPages(slug, root, (data) => ({ pages: data.pages.map((page) => page.replies), pageParams: data.pageParams }));
}

export function useThreadRoot(slug: string, root: number) {
  return useThreadPages(slug, root, (data) => data.pages[0]!.root);
}

/**
 * Where a linked message lives: a listing holds top-level messages only, so a link to a
 * reply (a search result, an inbox entry) opens its thread, with the root marked in the log.
 */
export function useLocatedMessage(slug: string, id: number | null) {
  return useQuery({
    queryKey: conversationKeys.located(slug, id ?? 0),
    enabled: id !== null,
    // Where a message sits never changes; only whether it is still readable does.
    staleTime: Infinity,
    retry: false,
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/messages/{id}/thread', { params: { path: { slug, id: id! }, query: { limit: 1 } } }))).root,
  });
}

/** Whether a message belongs to this conversation (a link may name one from elsewhere). */
export function inConversation(message: Message, conversation: Conversation): boolean {
  if (conversation.kind === 'channel') return message.channel === conversation.name;
  return message.direct_members?.includes(conversation.handle) ?? false;
}

/** `?thread=<id>`: the thread open beside the conversation. */
export function openThread(search: URLSearchParams): number | null {
  return positiveId(search.get('thread'));
}

const positiveId = (raw: string | null) => (raw !== null && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : null);

/** `?message=<id>`: the message a link (a search result) points at, in a conversation or a task's discussion. */
export function linkedMessage(search: URLSearchParams): number | null {
  return positiveId(search.get('message'));
}

export type ReadMark = Schemas['ReadMark'];

/** The caller's read marks here, one per conversation they have read (members only). */
export function useReadMarks(slug: string, enabled: boolean) {
  return useQuery({
    queryKey: conversationKeys.readMarks(slug),
    enabled,
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/read-marks', { params: { path: { slug } } }))).read_marks,
  });
}

/** The mark of one conversation, or 0 where nothing was read yet. */
export function markOf(marks: readonly ReadMark[] | undefined, conversation: Conversation): number {
  const mark = marks?.find((m) => (conversation.kind === 'channel' ? m.channel === conversation.name : m.with === conversation.handle));
  return mark?.message_id ?? 0;
}
