import type { Event } from '../api/client';

// What an inbox or timeline entry says about a message, and where it leads.

/** A message as posted, or as an edit made it: an edit that adds a mention reaches the inbox of whom it newly mentions. */
export type MessageEvent = Extract<Event, { type: 'message_posted' | 'message_edited' }>;

export const isMessage = (event: Event): event is MessageEvent => event.type === 'message_posted' || event.type === 'message_edited';

const spaceBase = (slug: string) => `/spaces/${encodeURIComponent(slug)}`;

/** Whether the message replies in a thread (events from before threads carry no `thread_root`). */
export const isReply = (event: MessageEvent): boolean => (event.payload.thread_root ?? null) !== null;

/**
 * The page that holds the message: its channel, the direct conversation (with `other`), or
 * its task. A reply leads to the message itself (`?message=`), which opens its thread there.
 */
export function messagePlace(event: MessageEvent, reader: string | null): { path: string; label: string } | null {
  const { payload } = event;
  if (event.space === null) return null;
  const base = spaceBase(event.space);
  // A reply opens its thread; an edit's entry shows the message it changed, marked.
  const at = isReply(event) || event.type === 'message_edited' ? `?message=${payload.message_id}` : '';
  if (payload.channel !== null) return { path: `${base}/channels/${encodeURIComponent(payload.channel)}${at}`, label: `#${payload.channel}` };
  if (payload.task !== null) return { path: `${base}/tasks/${payload.task}`, label: `task #${payload.task}` };
  const other = payload.direct_members?.find((h) => h !== reader) ?? payload.author;
  return { path: `${base}/dm/${encodeURIComponent(other)}${at}`, label: `a direct message` };
}

/**
 * A short plain-text excerpt of a Markdown body, for a list: the text is
 * shown as text (never rendered), so only the most visible markup is removed.
 */
export function excerpt(body: string, max = 240): string {
  const plain = body
    .replace(/```[\s\S]*?```/g, ' [code] ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    // Raw HTML is never rendered anywhere, so its tags are not text either.
    .replace(/<\/?[a-z][^>]*>/gi, '')
    .replace(/^\s*(?:#{1,6}|>+)\s*/gm, '')
    .replace(/[*~`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1).trimEnd()}…` : plain;
}
