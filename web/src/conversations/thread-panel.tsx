import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef } from 'react';
import { call, client, errorText } from '../api/client';
import { useNow } from '../app/now';
import { ErrorMessage, Loading } from '../app/page';
import { Composer } from './composer';
import { conversationKeys, useThreadReplies, useThreadRoot, type Conversation } from './data';
import { MessageHistory, MessageItem } from './history';

// A thread beside its conversation, as Slack and Zulip open one: the root at
// the top, its replies oldest to newest under it, and a composer that replies
// there. It is a region of the page, not a dialog: the conversation stays
// usable beside it on a wide screen; on a phone it takes the screen, with
// "Back" to the conversation. The Space feed keeps it live like the history
// (its read is under the same ['space', slug, 'conversations'] key).

export function ThreadPanel({
  slug,
  conversation,
  root,
  place,
  reader,
  target,
  canPost,
  moderator,
  handles,
  onClose,
}: {
  slug: string;
  conversation: Conversation;
  root: number;
  /** "#general" or "@bob": where the thread lives. */
  place: string;
  reader: string | null;
  /** A reply the address points at. */
  target: number | null;
  canPost: boolean;
  moderator: boolean;
  handles: readonly string[];
  onClose: () => void;
}) {
  const id = useId();
  const queries = useQueryClient();
  const rootMessage = useThreadRoot(slug, root);
  const replies = useThreadReplies(slug, root);
  const heading = useRef<HTMLHeadingElement>(null);
  const now = useNow(30_000);

  // Opening a thread moves focus into it, so a keyboard or screen-reader user lands where the
  // click took the eye; another thread is another panel and takes focus again.
  useEffect(() => {
    heading.current?.focus();
  }, [root]);

  const send = async (body: string) => {
    if (conversation.kind === 'channel') {
      await call(
        client.POST('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel: conversation.name } }, body: { body, thread_root: root } }),
      );
    } else {
      await call(client.POST('/v0/spaces/{slug}/direct-messages', { params: { path: { slug } }, body: { to: conversation.handle, body, thread_root: root } }));
    }
    await queries.invalidateQueries({ queryKey: conversationKeys.all(slug) });
  };

  const author = rootMessage.data?.author;
  return (
    <section className="thread-panel" aria-labelledby={`${id}-heading`}>
      <div className="thread-head">
        <h2 id={`${id}-heading`} ref={heading} tabIndex={-1}>
          Thread <span className="muted">in {place}</span>
        </h2>
        {/* One of the two words shows, and the hidden one leaves the button's name with it. */}
        <button type="button" className="secondary small" onClick={onClose}>
          <span className="thread-close-wide">Close thread</span>
          <span className="thread-close-narrow">Back to {place}</span>
        </button>
      </div>
      {rootMessage.isPending ? (
        <Loading what="the thread" />
      ) : rootMessage.isError ? (
        <ErrorMessage>{`Could not load the thread: ${errorText(rootMessage.error)}`}</ErrorMessage>
      ) : (
        <>
          <ol className="messages thread-root" aria-label="Thread root">
            <MessageItem message={rootMessage.data} reader={reader} targeted={false} now={now} moderator={moderator} />
          </ol>
          <MessageHistory
            history={replies}
            label={author ? `Replies to @${author}` : 'Replies'}
            reader={reader}
            empty="No replies yet."
            start="The thread starts with the message above."
            moderator={moderator}
            target={target}
          />
          {canPost ? <Composer label={`Reply in thread`} mentions={conversation.kind === 'channel'} handles={handles} me={reader} onSend={send} /> : null}
        </>
      )}
    </section>
  );
}
