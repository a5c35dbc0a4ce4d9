import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'wouter';
import { call, client, type Space } from '../api/client';
import { Composer } from './composer';
import {
  conversationKeys,
  inConversation,
  linkedMessage,
  openThread,
  postingRule,
  useChannels,
  useHistory,
  useLocatedMessage,
  useSpaceMemberHandles,
  type Conversation,
} from './data';
import { MessageHistory } from './history';
import { ThreadPanel } from './thread-panel';
import { useReadMark } from './unread';
import { Loading, PageHeading, useTitle } from '../app/page';
import { Link, navigate, signInPath, useLocation } from '../app/router';
import { useStanding } from '../api/standing';
import { useSpace } from '../spaces/space';

// A channel and a direct conversation are the same page: the history, kept
// live by the Space feed (every event of the Space refreshes the
// ['space', slug, …] reads, a new message among them), and a composer for
// whoever may post. The server refuses what the page should not have offered.

export function ChannelPage() {
  const { slug, channel } = useParams<{ slug: string; channel: string }>();
  useTitle(`#${channel}`);
  const space = useSpace(slug);
  const channels = useChannels(slug);
  const known = channels.data?.find((c) => c.name === channel);
  const { search } = useLocation();
  if (space.isPending || channels.isPending) return <Loading what="the channel" />;
  if (!space.data) return null;
  if (channels.isSuccess && !known) {
    return (
      <section key={`missing:${channel}`} className="conversation-page">
        <PageHeading>No channel #{channel}</PageHeading>
        <p>This Space has no channel of that name. Its channels are listed with its places.</p>
      </section>
    );
  }
  // Keyed by channel: another channel is a new page, whose heading takes focus again.
  return (
    <section key={`channel:${channel}`} className="conversation-page">
      <PageHeading>#{channel}</PageHeading>
      {known?.topic ? <p className="channel-topic">{known.topic}</p> : null}
      <ConversationView space={space.data} conversation={{ kind: 'channel', name: channel }} target={linkedMessage(search)} />
    </section>
  );
}

export function DirectMessagePage() {
  const { slug, handle } = useParams<{ slug: string; handle: string }>();
  useTitle(`@${handle}`);
  const space = useSpace(slug);
  const standing = useStanding(slug);
  const { pathname, search } = useLocation();
  if (space.isPending) return <Loading what="the conversation" />;
  if (!space.data) return null;
  return (
    <section key={`direct:${handle}`} className="conversation-page">
      <PageHeading>Direct messages with @{handle}</PageHeading>
      {standing.me === null ? (
        <p>
          Direct messages are private to their two members. <Link to={signInPath(pathname)}>Sign in</Link> to read yours.
        </p>
      ) : standing.me.handle === handle ? (
        <p>This is you: a direct conversation is with another member of the Space.</p>
      ) : (
        <>
          <p className="muted">Only you and @{handle} can read this conversation.</p>
          <ConversationView space={space.data} conversation={{ kind: 'direct', handle }} target={linkedMessage(search)} />
        </>
      )}
    </section>
  );
}

function ConversationView({ space, conversation, target: linked }: { space: Space; conversation: Conversation; target: number | null }) {
  const slug = space.slug;
  const { pathname, search } = useLocation();
  // A link to a reply opens its thread, with the root marked in the log (a listing holds
  // top-level messages only); a link to a message of another conversation is left to the
  // log, which says it is not here.
  const located = useLocatedMessage(slug, linked);
  const linkedRoot = located.data && located.data.id !== linked && inConversation(located.data, conversation) ? located.data : null;
  const thread = openThread(search) ?? linkedRoot?.id ?? null;
  const target = linkedRoot ? linkedRoot.id : linked;
  const showThread = (root: number | null) => navigate(root === null ? pathname : `${pathname}?thread=${root}`);
  const standing = useStanding(slug);
  const queries = useQueryClient();
  const history = useHistory(slug, conversation);
  const rule = postingRule(space, standing);
  const members = useSpaceMemberHandles(slug, rule.allowed && conversation.kind === 'channel');
  const place = conversation.kind === 'channel' ? `#${conversation.name}` : `@${conversation.handle}`;
  const me = standing.me?.handle ?? null;
  const historyKey = conversation.kind === 'channel' ? conversationKeys.channel(slug, conversation.name) : conversationKeys.direct(slug, conversation.handle);


  const send = async (body: string) => {
    if (conversation.kind === 'channel') {
      await call(client.POST('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel: conversation.name } }, body: { body } }));
    } else {
      await call(client.POST('/v0/spaces/{slug}/direct-messages', { params: { path: { slug } }, body: { to: conversation.handle, body } }));
      await queries.invalidateQueries({ queryKey: conversationKeys.directs(slug) });
    }
    await queries.invalidateQueries({ queryKey: historyKey });
  };

  const openedAt = useReadMark(slug, conversation, me, history.data);
  // In a direct message `@handles` notify nobody (docs/messages.md), so none are offered.
  const handles = conversation.kind === 'channel' ? (members.data ?? []) : [];
  return (
    <div className={thread === null ? 'conversation-layout' : 'conversation-layout with-thread'}>
      <div className="conversation-main">
        <MessageHistory
          history={history}
          label={conversation.kind === 'channel' ? `Messages in ${place}` : `Messages with ${place}`}
          reader={me}
          empty={conversation.kind === 'channel' ? `No messages in ${place} yet.` : `No messages with ${place} yet.`}
          target={target}
          onOpenThread={(root) => showThread(root === thread ? null : root)}
          openThread={thread}
          newSince={openedAt}
          moderator={standing.ownerOrHost}
        />
        {rule.allowed ? <Composer label={`Message ${place}`} mentions={conversation.kind === 'channel'} handles={handles} me={me} onSend={send} /> : <CannotPost reason={rule.reason} />}
      </div>
      {thread !== null ? (
        <ThreadPanel
          key={thread}
          slug={slug}
          conversation={conversation}
          root={thread}
          place={place}
          reader={me}
          target={linkedRoot ? linked : null}
          canPost={rule.allowed}
          moderator={standing.ownerOrHost}
          handles={handles}
          onClose={() => showThread(null)}
        />
      ) : null}
    </div>
  );
}

function CannotPost({ reason }: { reason: string }) {
  const { pathname } = useLocation();
  if (reason === 'sign-in') {
    return (
      <p className="notice">
        <Link to={signInPath(pathname)}>Sign in</Link> to post.
      </p>
    );
  }
  return <p className="notice">{reason}</p>;
}
