import { useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call, client } from '../api/client';
import { useSpaceFeed } from '../api/live';
import { conversationKeys, markOf, useReadMarks, type Conversation, type Message } from './data';

// Read marks in the web app: the conversation on screen is read up to its
// newest message whenever the page is in view, so the sidebar's counts clear
// on every device (the host keeps the marks); and the mark as it stood when
// the conversation opened places the "New messages" divider, which stays put
// while the person reads.

/** The newest message of the conversation this page knows of: the log's, or a later one the Space feed brought (a reply). */
function useHead(conversation: Conversation, me: string, pages: InfiniteData<Message[]> | undefined): number {
  const feed = useSpaceFeed();
  let head = pages?.pages[0]?.[0]?.id ?? 0;
  for (const event of feed.events) {
    if (event.type !== 'message_posted') continue;
    const { payload } = event;
    const here =
      conversation.kind === 'channel'
        ? payload.channel === conversation.name
        : (payload.direct_members?.includes(conversation.handle) ?? false) && payload.direct_members!.includes(me);
    if (here && payload.message_id > head) head = payload.message_id;
  }
  return head;
}

/**
 * Keeps the reader's mark at the conversation's head while the page is visible, and answers
 * the mark as it was when the conversation opened (null until the marks are read).
 */
export function useReadMark(slug: string, conversation: Conversation, me: string | null, pages: InfiniteData<Message[]> | undefined): number | null {
  const queries = useQueryClient();
  const marks = useReadMarks(slug, me !== null);
  const head = useHead(conversation, me ?? '', pages);
  const current = markOf(marks.data, conversation);
  const [openedAt, setOpenedAt] = useState<number | null>(null);
  /** The head last sent, so a refusal is not sent again and again. */
  const sent = useRef(0);
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');

  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);

  useEffect(() => {
    if (openedAt === null && marks.isSuccess) setOpenedAt(current);
  }, [openedAt, marks.isSuccess, current]);

  useEffect(() => {
    if (me === null || !marks.isSuccess || !visible || head <= current || head <= sent.current) return;
    sent.current = head;
    const target = conversation.kind === 'channel' ? { channel: conversation.name } : { with: conversation.handle };
    void call(client.POST('/v0/spaces/{slug}/read-marks', { params: { path: { slug } }, body: { ...target, message_id: head } }))
      .then(() => queries.invalidateQueries({ queryKey: conversationKeys.readMarks(slug) }))
      .then(() => queries.invalidateQueries({ queryKey: conversationKeys.channels(slug) }))
      // A mark refused (the message went, or a later mark arrived from another device) is left to the next head.
      .catch(() => undefined);
  }, [me, marks.isSuccess, visible, head, current, slug, conversation, queries]);

  return openedAt;
}
