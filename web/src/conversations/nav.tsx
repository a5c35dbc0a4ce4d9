import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { call, client, errorText, type Space } from '../api/client';
import { ErrorMessage } from '../app/page';
import type { FormWords } from '../app/form-errors';
import { Link, navigate, useLocation } from '../app/router';
import { spacePath } from '../spaces/space';
import { useStanding } from '../api/standing';
import { conversationKeys, markOf, postingRule, useChannels, useDirectConversations, useReadMarks, useSpaceMemberHandles } from './data';
import './conversations.css';

// The Space sidebar's conversations: its channels, readable by everyone who
// may read the Space, and the signed-in member's own direct conversations
// here (the API lists them only to a member: anonymous readers get none).
// Creating a channel and writing to someone need the action gate.

export function ConversationsNav({ space }: { space: Space }) {
  const standing = useStanding(space.slug);
  const signedIn = standing.me !== null;
  const mayPost = postingRule(space, standing).allowed;
  return (
    <>
      <ChannelList space={space} mayCreate={mayPost} />
      {signedIn ? <DirectList space={space} me={standing.me!.handle} mayWrite={mayPost} /> : null}
    </>
  );
}

function useCurrent() {
  const { pathname } = useLocation();
  return (to: string) => (pathname === to ? ('page' as const) : undefined);
}

function ChannelList({ space, mayCreate }: { space: Space; mayCreate: boolean }) {
  const channels = useChannels(space.slug);
  const current = useCurrent();
  const headingId = useId();
  return (
    <section className="conversation-group" aria-labelledby={headingId}>
      <h2 id={headingId}>Channels</h2>
      {channels.isPending ? (
        <p className="muted small-text">Loading…</p>
      ) : channels.isError ? (
        <p className="error small-text">{`Could not load the channels: ${errorText(channels.error)}`}</p>
      ) : channels.data.length === 0 ? (
        <p className="muted small-text">No channels yet.</p>
      ) : (
        <ul>
          {channels.data.map((c) => {
            const to = spacePath(space.slug, `/channels/${encodeURIComponent(c.name)}`);
            // The channel on screen is being read: its count would only flicker until the mark lands.
            const unread = current(to) ? 0 : (c.unread ?? 0);
            return (
              <li key={c.name}>
                <Link to={to} aria-current={current(to)} className={unread > 0 ? 'has-unread' : undefined}>
                  #{c.name}
                  <UnreadCount count={unread} />
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      {mayCreate ? <NewChannel slug={space.slug} /> : null}
    </section>
  );
}

/** Channel names follow the slug pattern; the server judges, this only helps before the round trip. */
const CHANNEL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The new-channel form's labels, and a name another channel has. */
const CHANNEL_WORDS: FormWords = {
  fields: { name: 'Channel name', topic: 'Topic' },
  refusals: { channel_exists: (detail) => `#${/^channel (\S+) exists/.exec(detail)?.[1] ?? 'that'} exists already. Choose another name.` },
};

function NewChannel({ slug }: { slug: string }) {
  const id = useId();
  const queries = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [topic, setTopic] = useState('');
  const [problem, setProblem] = useState('');
  const creating = useMutation({
    mutationFn: () => call(client.POST('/v0/spaces/{slug}/channels', { params: { path: { slug } }, body: { name, topic } })),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: conversationKeys.channels(slug) });
      setOpen(false);
      setName('');
      setTopic('');
      navigate(spacePath(slug, `/channels/${encodeURIComponent(name)}`));
    },
  });
  const busy = creating.isPending;
  if (!open) {
    return (
      <button type="button" className="secondary small" onClick={() => setOpen(true)}>
        New channel
      </button>
    );
  }
  const create = () => {
    if (busy) return;
    creating.reset();
    if (!CHANNEL_NAME.test(name) || name.length > 64) {
      setProblem('A channel name is 1-64 lowercase letters, digits and single hyphens, like “design-review”.');
      return;
    }
    setProblem('');
    creating.mutate();
  };
  return (
    <form
      className="sidebar-form"
      aria-label="New channel"
      onSubmit={(event) => {
        event.preventDefault();
        create();
      }}
    >
      <label htmlFor={`${id}-name`}>Channel name</label>
      <input id={`${id}-name`} value={name} autoFocus onChange={(e) => setName(e.target.value.toLowerCase())} aria-describedby={`${id}-hint`} />
      <p id={`${id}-hint`} className="hint">
        Lowercase letters, digits and hyphens.
      </p>
      <label htmlFor={`${id}-topic`}>Topic (optional)</label>
      <input id={`${id}-topic`} value={topic} maxLength={280} onChange={(e) => setTopic(e.target.value)} />
      <ErrorMessage>{problem || (creating.isError ? errorText(creating.error, CHANNEL_WORDS) : '')}</ErrorMessage>
      <div className="actions">
        <button type="submit" className="small" aria-disabled={busy}>
          Create
        </button>
        <button type="button" className="secondary small" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * "3 unread" to a screen reader, a count badge to the eye, inside the link (so its name says it).
 * The host counts to 100 at most, so 100 reads "99+".
 */
function UnreadCount({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span className="badge count unread-count">
      <span aria-hidden="true">{count > 99 ? '99+' : count}</span>
      <span className="visually-hidden">{count > 99 ? ' over 99 unread' : ` ${count} unread`}</span>
    </span>
  );
}

function DirectList({ space, me, mayWrite }: { space: Space; me: string; mayWrite: boolean }) {
  const directs = useDirectConversations(space.slug, true);
  const marks = useReadMarks(space.slug, true);
  const current = useCurrent();
  const headingId = useId();
  return (
    <section className="conversation-group" aria-labelledby={headingId}>
      <h2 id={headingId}>Direct messages</h2>
      {directs.isPending ? (
        <p className="muted small-text">Loading…</p>
      ) : directs.isError ? (
        <p className="error small-text">{`Could not load your direct messages: ${errorText(directs.error)}`}</p>
      ) : directs.data.length === 0 ? (
        <p className="muted small-text">No direct messages yet.</p>
      ) : (
        <ul>
          {directs.data.map((c) => {
            const to = spacePath(space.slug, `/dm/${encodeURIComponent(c.with)}`);
            // The list names each conversation's newest message: past the mark, and not one's own, it is unread.
            const unread =
              !current(to) && marks.isSuccess && c.last_message.author !== me && c.last_message.id > markOf(marks.data, { kind: 'direct', handle: c.with });
            return (
              <li key={c.with}>
                <Link to={to} aria-current={current(to)} className={unread ? 'has-unread' : undefined}>
                  @{c.with}
                  {unread ? (
                    <>
                      <span className="unread-dot" aria-hidden="true" />
                      <span className="visually-hidden"> unread</span>
                    </>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      {mayWrite ? <NewDirectMessage slug={space.slug} me={me} /> : null}
    </section>
  );
}

function NewDirectMessage({ slug, me }: { slug: string; me: string }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState('');
  const members = useSpaceMemberHandles(slug, open);
  if (!open) {
    return (
      <button type="button" className="secondary small" onClick={() => setOpen(true)}>
        Message a member
      </button>
    );
  }
  const others = (members.data ?? []).filter((h) => h !== me);
  return (
    <form
      className="sidebar-form"
      aria-label="Message a member"
      onSubmit={(event) => {
        event.preventDefault();
        if (to === '') return;
        setOpen(false);
        navigate(spacePath(slug, `/dm/${encodeURIComponent(to)}`));
      }}
    >
      <label htmlFor={`${id}-to`}>Member</label>
      {members.isError ? <ErrorMessage>{`Could not load the members: ${errorText(members.error)}`}</ErrorMessage> : null}
      <select id={`${id}-to`} value={to} autoFocus onChange={(e) => setTo(e.target.value)}>
        <option value="">{members.isPending ? 'Loading…' : others.length === 0 ? 'No other members yet' : 'Choose a member'}</option>
        {others.map((h) => (
          <option key={h} value={h}>
            @{h}
          </option>
        ))}
      </select>
      <div className="actions">
        <button type="submit" className="small" disabled={to === ''}>
          Open conversation
        </button>
        <button type="button" className="secondary small" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
