import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage, Loading } from '../app/page';
import { AuthorHandle } from '../members/member-kind';
import { useNow } from '../app/now';
import { RelativeTime } from '../app/ui';
import type { Message } from './data';
import { continuesTurn } from './grouping';
import { DeleteMessage, EditedMark, EditMessage, MessageVersions, Tombstone } from './message-edit';
import { AddReaction, ReactionChips } from './reactions';
import { remarkMentions } from './mentions';

// A conversation's history, oldest at the top and newest at the bottom, in a
// scrolling log. It opens at the newest message; scrolling to the top (or the
// "Load older messages" button, for the keyboard) loads the page before.
// Messages that arrive while the reader is at the bottom keep it there; a
// reader who scrolled up to read stays where they are. A link to one message
// (`?message=<id>`, as a search result gives) loads pages back until it is
// there, then scrolls to it, marks it and gives it focus.

/** Within this many pixels of the bottom counts as "at the bottom". */
const NEAR_BOTTOM = 48;

export function MessageHistory({
  history,
  label,
  reader,
  empty,
  target = null,
  onOpenThread,
  openThread = null,
  start = 'This is the beginning of the conversation.',
  newSince = null,
  moderator = false,
}: {
  history: UseInfiniteQueryResult<InfiniteData<Message[]>>;
  /** Names the log for screen readers ("Messages in #general"). */
  label: string;
  reader: string | null;
  empty: string;
  /** The message the address points at, to bring into view. */
  target?: number | null;
  /** Opens a top-level message's thread; absent inside a thread, where replies have none. */
  onOpenThread?: (root: number) => void;
  /** The root whose thread is open beside the log. */
  openThread?: number | null;
  /** Said above the oldest message once nothing older remains. */
  start?: string;
  /** The reader's mark when the conversation opened: "New messages" goes above the first one after it. */
  newSince?: number | null;
  /** The reader is an Owner/Host of the Space: they may delete anyone's message. */
  moderator?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLDivElement>(null);
  /** Distance from the bottom before the last render, and the ends of what was shown. */
  const seen = useRef({ fromBottom: 0, oldest: 0, newest: 0 });
  const messages = useMemo(() => (history.data?.pages ?? []).flat().reverse(), [history.data]);
  /** Newer messages arrived while the reader was reading further up. */
  const [newBelow, setNewBelow] = useState(false);
  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = history;
  /** The target this log last brought into view: it lands once, then the reader scrolls freely. */
  const landed = useRef<number | null>(null);
  const now = useNow(30_000);
  // Only where the reader had read something before: a first visit is all new, and says so by itself.
  const firstNew = newSince ? messages.find((m) => m.id > newSince && m.author !== reader)?.id : undefined;
  const targetHeld = target !== null && messages.some((m) => m.id === target);
  const targetMissing = target !== null && !targetHeld && history.isSuccess && !hasNextPage;

  const loadOlder = () => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  };

  // The linked message is older than what is held: read back a page at a time until it is there.
  useEffect(() => {
    if (target !== null && !targetHeld && history.isSuccess && hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage();
  }, [target, targetHeld, history.isSuccess, hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage]);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el || messages.length === 0) return;
    const oldest = messages[0]!.id;
    const newest = messages[messages.length - 1]!.id;
    const before = seen.current;
    if (before.newest === 0) {
      el.scrollTop = el.scrollHeight;
    } else if (oldest < before.oldest) {
      // Older messages went in above: keep the ones being read where they were.
      el.scrollTop = el.scrollHeight - el.clientHeight - before.fromBottom;
    } else if (newest > before.newest) {
      // The reader's own message always shows: they just sent it.
      if (before.fromBottom <= NEAR_BOTTOM || messages[messages.length - 1]!.author === reader) el.scrollTop = el.scrollHeight;
      else setNewBelow(true);
    }
    seen.current = { fromBottom: el.scrollHeight - el.clientHeight - el.scrollTop, oldest, newest };
  }, [messages, reader]);

  // Once the linked message is held, it comes into view and takes focus: after the scrolling above,
  // and after the page heading took focus on arrival (a passive effect, as this is).
  useEffect(() => {
    const el = box.current;
    if (!el || target === null || landed.current === target) return;
    const item = el.querySelector<HTMLElement>(`[data-message="${target}"]`);
    if (!item) return;
    landed.current = target;
    item.focus({ preventScroll: true });
    item.scrollIntoView({ block: 'center' });
    seen.current.fromBottom = el.scrollHeight - el.clientHeight - el.scrollTop;
  }, [messages, target]);

  // Scrolling up to the first message loads the page before it.
  useEffect(() => {
    const el = top.current;
    if (!el || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && seen.current.newest !== 0) loadOlder();
    }, { root: box.current, rootMargin: '200px 0px 0px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  });

  if (history.isPending) return <Loading what="the messages" />;
  // A failed refresh or older page keeps what is shown; only a first load that failed has nothing to show.
  if (history.isError && !history.data) return <ErrorMessage>{`Could not load the messages: ${errorText(history.error)}`}</ErrorMessage>;

  return (
    <div
      ref={box}
      className="message-log"
      role="log"
      aria-live="polite"
      aria-label={label}
      aria-busy={isFetchingNextPage}
      // The log scrolls on its own: keyboard users need to be able to focus it to scroll.
      tabIndex={0}
      onScroll={(event) => {
        const el = event.currentTarget;
        seen.current.fromBottom = el.scrollHeight - el.clientHeight - el.scrollTop;
        if (seen.current.fromBottom <= NEAR_BOTTOM) setNewBelow(false);
      }}
    >
      <div ref={top} className="message-log-start">
        {hasNextPage ? (
          <button type="button" className="secondary small" onClick={loadOlder} aria-disabled={isFetchingNextPage}>
            {isFetchingNextPage ? 'Loading older messages…' : 'Load older messages'}
          </button>
        ) : messages.length > 0 ? (
          <p className="muted">{start}</p>
        ) : null}
      </div>
      {targetMissing ? <p className="notice">The message this link points to is not in this conversation.</p> : null}
      {history.isFetchNextPageError ? <ErrorMessage>{`Could not load older messages: ${errorText(history.error)}`}</ErrorMessage> : null}
      {history.isRefetchError ? <ErrorMessage>{`Could not refresh the messages: ${errorText(history.error)}`}</ErrorMessage> : null}
      {messages.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ol className="messages">
          {messages.map((message, i) => (
            <MessageItem
              key={message.id}
              message={message}
              reader={reader}
              targeted={message.id === target}
              continued={continuesTurn(messages[i - 1], message)}
              now={now}
              onOpenThread={onOpenThread}
              threadOpen={message.id === openThread}
              firstNew={message.id === firstNew}
              moderator={moderator}
            />
          ))}
        </ol>
      )}
      {newBelow ? (
        <div className="new-below">
          <button
            type="button"
            className="small"
            onClick={() => {
              box.current?.scrollTo({ top: box.current.scrollHeight });
              setNewBelow(false);
            }}
          >
            New messages below
          </button>
        </div>
      ) : null}
    </div>
  );
}

export function MessageItem({
  message,
  reader,
  targeted,
  continued = false,
  now,
  onOpenThread,
  threadOpen = false,
  firstNew = false,
  moderator = false,
}: {
  message: Message;
  reader: string | null;
  targeted: boolean;
  /** The same author's turn goes on: the author and time show only to screen readers and on hover. */
  continued?: boolean;
  now: number;
  onOpenThread?: ((root: number) => void) | undefined;
  threadOpen?: boolean;
  /** The first message after the reader's mark: the "New messages" divider goes above it. */
  firstNew?: boolean;
  moderator?: boolean;
}) {
  const direct = message.direct_members !== undefined;
  // In a direct message the other participant is "mentioned" by definition: nothing to highlight.
  const mentioned = direct ? [] : message.mentioned_members;
  const mentionsMe = reader !== null && mentioned.includes(reader);
  const plugins = useMemo(() => [remarkMentions({ mentioned, reader })], [mentioned, reader]);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const deleted = message.deleted_ts !== null;
  const [versionsOpen, setVersionsOpen] = useState(false);
  const versionsId = useId();
  const mine = reader !== null && message.author === reader;
  // The turn goes on unless something sets this message apart: the divider above it, or its thread.
  const turn = continued && !firstNew && (message.reply_count ?? 0) === 0;
  return (
    <li
      className={['message', turn ? 'continued' : '', threadOpen ? 'thread-open' : '', mentionsMe ? 'mentions-me' : '', targeted ? 'targeted' : ''].filter(Boolean).join(' ')}
      data-message={message.id}
      {...(targeted ? { 'aria-current': true, tabIndex: -1 } : {})}
    >
      {firstNew ? (
        <p className="new-divider">
          <span>New messages</span>
        </p>
      ) : null}
      <p className="message-meta">
        <span className={turn ? 'visually-hidden' : undefined}>
          <AuthorHandle handle={message.author} />
        </span>
        <RelativeTime iso={message.created_ts} now={now} />
        {message.edited_ts !== null ? <EditedMark open={versionsOpen} controls={versionsId} onToggle={() => setVersionsOpen(!versionsOpen)} /> : null}
        {mentionsMe ? <span className="badge mention-badge">mentions you</span> : null}
        {targeted ? <span className="badge target-badge">linked</span> : null}
      </p>
      {deleted ? (
        <Tombstone message={message} />
      ) : editing ? (
        <EditMessage message={message} onDone={() => setEditing(false)} />
      ) : (
        <RenderedMarkdown source={message.body} className="message-body" remarkPlugins={plugins} />
      )}
      {versionsOpen && message.edited_ts !== null ? <MessageVersions message={message} id={versionsId} /> : null}
      <ReactionChips message={message} reader={reader} />
      {onOpenThread && message.thread_root === null && (message.reply_count ?? 0) > 0 ? (
        <ThreadSummary message={message} now={now} open={threadOpen} onOpen={onOpenThread} />
      ) : null}
      {deleting && !deleted ? <DeleteMessage message={message} reader={reader} onDone={() => setDeleting(false)} /> : null}
      {!editing && !deleting && !deleted && (reader !== null || onOpenThread) ? (
        // Floats over the message's corner where there is a pointer (shown on hover or focus), a row of
        // its own on touch screens.
        <div className="message-toolbar">
          {onOpenThread && message.thread_root === null && (message.reply_count ?? 0) === 0 ? (
            <button type="button" className="link-button" aria-expanded={threadOpen} onClick={() => onOpenThread(message.id)}>
              Reply in thread<span className="visually-hidden"> to @{message.author}</span>
            </button>
          ) : null}
          {reader !== null ? <AddReaction message={message} /> : null}
          {mine ? (
            <button type="button" className="link-button" onClick={() => setEditing(true)}>
              Edit<span className="visually-hidden"> your message</span>
            </button>
          ) : null}
          {mine || moderator ? (
            <button type="button" className="link-button danger-link" onClick={() => setDeleting(true)}>
              Delete<span className="visually-hidden">{mine ? ' your message' : ` @${message.author}’s message`}</span>
            </button>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

/** Under a top-level message with replies: "3 replies", which opens the thread, and when the last came. */
function ThreadSummary({ message, now, open, onOpen }: { message: Message; now: number; open: boolean; onOpen: (root: number) => void }) {
  const count = message.reply_count ?? 0;
  return (
    <p className="thread-summary">
      <button type="button" className="link-button replies" aria-expanded={open} onClick={() => onOpen(message.id)}>
        {count === 1 ? '1 reply' : `${count} replies`}
      </button>
      {message.last_reply_ts ? (
        <span className="muted">
          last reply <RelativeTime iso={message.last_reply_ts} now={now} />
        </span>
      ) : null}
    </p>
  );
}
