import { useEffect, useState } from 'react';
import '../conversations/conversations.css';
import { excerpt, isMessage, isReply, messagePlace, type MessageEvent } from './items';
import { call, client } from '../api/client';
import { useInbox, useMarkSeen } from './seen';
import { useInboxFeed } from '../api/live';
import { useHistory } from '../api/older';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { Link, signInPath } from '../app/router';
import { useSession } from '../api/session';
import { ShowMore, Time } from '../app/ui';

// The inbox: mentions of the signed-in member and direct messages to them,
// across every Space they can read (`GET /v0/me/inbox-events`, followed live
// for the whole app). Opening it marks everything read: what was new when it
// opened, or arrives while it is open, keeps a "new" mark until the next visit.
// The follower keeps the newest 500 events; older ones are read back on request.

/** How many inbox events one "Show older messages" reads. */
const STEP = 100;

export function InboxPage() {
  useTitle('Inbox');
  const { state } = useSession();
  if (state.status === 'loading') return <Loading what="your inbox" />;
  if (state.status !== 'signed-in') {
    return (
      <section className="narrow">
        <PageHeading>Inbox</PageHeading>
        <p>
          <Link to={signInPath('/inbox')}>Sign in</Link> to see the messages that mention you and your direct messages.
        </p>
      </section>
    );
  }
  return <Inbox key={state.member.handle} member={state.member.handle} />;
}

function Inbox({ member }: { member: string }) {
  const inbox = useInbox();
  if (inbox.seen === null) return <Loading what="your inbox" />;
  return <InboxItems member={member} inbox={inbox} seen={inbox.seen} />;
}

function InboxItems({ member, inbox, seen }: { member: string; inbox: ReturnType<typeof useInbox>; seen: number }) {
  const markSeen = useMarkSeen();
  // What the member had read when they opened the page: newer items are marked new.
  const [seenAtOpen] = useState(seen);
  const newest = inbox.events.length > 0 ? inbox.events[inbox.events.length - 1]!.cursor : 0;
  useEffect(() => {
    // A failed mark only leaves items counted as unread; the next visit marks them again.
    if (newest > 0) markSeen(newest).catch(() => undefined);
  }, [markSeen, newest]);

  const history = useHistory(useInboxFeed(), STEP, (before) => call(client.GET('/v0/me/inbox-events', { params: { query: { newest: STEP, before } } })));
  const items = history.events.filter(isMessage).reverse();
  const fresh = items.filter((e) => e.cursor > seenAtOpen).length;

  return (
    <section className="inbox">
      <PageHeading>Inbox</PageHeading>
      <p className="muted">Messages that mention you and direct messages to you, in every Space you can read, newest first.</p>
      <ErrorMessage>{inbox.error ? `Could not follow your inbox: ${inbox.error}` : null}</ErrorMessage>
      {!inbox.caughtUp && items.length === 0 ? (
        <Loading what="your inbox" />
      ) : (
        <>
          <p role="status" className="notice">
            {fresh === 0 ? 'Nothing new. ' : `${fresh} new ${fresh === 1 ? 'message' : 'messages'}, marked “new” below. `}
            Opening the inbox marks everything in it as read.
          </p>
          {items.length === 0 ? (
            <p>Nothing here yet. When someone mentions you with @{member} or writes to you directly, it shows up here.</p>
          ) : (
            <ol className="inbox-list" aria-label="Inbox, newest first">
              {items.map((event) => (
                <InboxItem key={event.cursor} event={event} reader={member} unread={event.cursor > seenAtOpen} />
              ))}
            </ol>
          )}
          <ErrorMessage>{history.error ? `Could not read older messages: ${history.error}` : null}</ErrorMessage>
          {history.olderLeft ? (
            <ShowMore busy={history.loading} busyText="Reading older messages…" onClick={history.readOlder}>
              Show older messages
            </ShowMore>
          ) : null}
        </>
      )}
    </section>
  );
}

function InboxItem({ event, reader, unread }: { event: MessageEvent; reader: string; unread: boolean }) {
  const place = messagePlace(event, reader);
  const direct = event.payload.direct_members !== undefined;
  // A reply reaches the thread's earlier authors whether or not it names them.
  const mentioned = event.payload.mentioned_members.includes(reader);
  const what = direct
    ? isReply(event)
      ? 'replied in a thread of your direct messages'
      : 'sent you a direct message'
    : isReply(event) && !mentioned
      ? `replied in a thread in ${place?.label ?? 'a conversation'}`
      : `mentioned you in ${place?.label ?? 'a message'}${event.type === 'message_edited' ? ' (in an edit)' : ''}`;
  return (
    <li className={unread ? 'inbox-item unread' : 'inbox-item'}>
      <h2>
        {place ? (
          <Link to={place.path}>
            @{event.payload.author} {what}
          </Link>
        ) : (
          `@${event.payload.author} ${what}`
        )}
      </h2>
      <p className="inbox-meta">
        {unread ? <span className="badge unread">new</span> : null}
        {event.space ? (
          <span>
            Space <Link to={`/spaces/${encodeURIComponent(event.space)}`}>{event.space}</Link>
          </span>
        ) : null}
        <Time iso={event.created_ts} />
      </p>
      {/* A deleted message's events keep no body. */}
      <p className="excerpt">{event.payload.body === undefined ? '(deleted)' : excerpt(event.payload.body)}</p>
    </li>
  );
}
