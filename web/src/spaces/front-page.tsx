import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'wouter';
import { call, client, type Schemas, type Space } from '../api/client';
import { useSpaceFeed } from '../api/live';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { Link, signInPath } from '../app/router';
import { standingKeys, useStanding } from '../api/standing';
import { ConfirmDialog, Loaded, Notice } from '../app/ui';
import { useAction } from '../app/actions';
import { JOIN_POLICY_LABEL, spaceKeys, spacePath, useSpace } from './space';
import './spaces.css';

// A Space's front page: its name, purpose and charter, then its pins in order
// (docs/pins.md). The first pin is by convention the README and is shown in
// full; the others are listed. A pin whose Resource or repository file is gone
// stays in the list marked missing: hiding it would hide that something the
// Owners chose to show is broken.

export type FrontPagePin = Schemas['FrontPagePin'];

export function useFrontPage(slug: string) {
  return useQuery({
    queryKey: spaceKeys.frontPage(slug),
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/front-page', { params: { path: { slug } } }))).pins,
  });
}

/** Where a pin leads: a Resource's own page; a repository file has none, so it is shown in place. */
export function pinLabel(pin: FrontPagePin): string {
  return pin.kind === 'repository' ? `${pin.name} (repository file)` : pin.name;
}

export function FrontPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  useTitle(space.data?.name ?? slug);
  if (!space.data) return <Loading what="the Space" />;
  return <FrontPageOf space={space.data} />;
}

function FrontPageOf({ space }: { space: Space }) {
  const pins = useFrontPage(space.slug);
  return (
    <article className="front-page">
      <header className="front-page-header">
        <PageHeading>{space.name}</PageHeading>
        <p className="front-page-facts">
          {space.status === 'proposed' ? <span className="badge">waiting for approval</span> : null}
          {space.status === 'archived' ? <span className="badge">archived: read-only</span> : null}
          <span className="badge">{JOIN_POLICY_LABEL[space.join_policy]}</span>
        </p>
        {space.purpose ? <p className="front-page-purpose">{space.purpose}</p> : null}
        <Admission space={space} />
      </header>
      {space.charter ? (
        <section aria-labelledby="charter">
          <h2 id="charter">Charter</h2>
          <RenderedMarkdown source={space.charter} />
        </section>
      ) : null}
      <Loaded query={pins} what="the pinned Resources">
        {(list) => <Pins slug={space.slug} pins={list} />}
      </Loaded>
    </article>
  );
}

function Pins({ slug, pins }: { slug: string; pins: FrontPagePin[] }) {
  const [readme, ...others] = pins;
  if (!readme) {
    return (
      <p className="muted">
        Nothing is pinned yet. <Link to={spacePath(slug, '/pins')}>Pins</Link> says how a Resource gets here.
      </p>
    );
  }
  return (
    <>
      <section aria-labelledby="readme" className="card readme">
        <h2 id="readme">
          <PinTitle slug={slug} pin={readme} />
        </h2>
        {readme.missing || readme.body === null ? <MissingPin pin={readme} /> : <RenderedMarkdown source={readme.body} topHeading={3} title={readme.name} />}
      </section>
      {others.length > 0 ? (
        <section aria-labelledby="also-pinned">
          <h2 id="also-pinned">Also pinned</h2>
          <ol className="pin-list" start={2}>
            {others.map((pin) => (
              <li key={pin.id} className="card">
                <PinTitle slug={slug} pin={pin} />
                {pin.missing ? <MissingPin pin={pin} /> : pin.kind === 'repository' && pin.body !== null ? <RepositoryFile body={pin.body} /> : null}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </>
  );
}

function PinTitle({ slug, pin }: { slug: string; pin: FrontPagePin }) {
  return (
    <span className="pin-title">
      {pin.kind === 'resource' && !pin.missing ? (
        <Link to={spacePath(slug, `/resources/${encodeURIComponent(pin.id)}`)}>{pin.name}</Link>
      ) : (
        <span className={pin.kind === 'repository' ? 'mono' : undefined}>{pin.name}</span>
      )}
      {pin.kind === 'repository' ? <span className="badge">repository file</span> : null}
      {pin.missing ? <span className="badge missing">missing</span> : null}
    </span>
  );
}

function MissingPin({ pin }: { pin: FrontPagePin }) {
  return (
    <p className="missing-pin">
      {pin.kind === 'repository'
        ? 'This file is no longer on the main branch of the repository, or is no longer text. It stays pinned until an Owner or Host unpins it.'
        : 'This Resource cannot be found. It stays pinned until an Owner or Host unpins it.'}
    </p>
  );
}

/** A repository file has no page of its own: its text unfolds in place. */
function RepositoryFile({ body }: { body: string }) {
  return (
    <details className="repository-file">
      <summary>Show the file</summary>
      <RenderedMarkdown source={body} />
    </details>
  );
}

/**
 * The Space feed refreshes this Space's reads, but the caller's memberships are
 * cached under `['me', …]`: an admission, invitation or removal that names
 * them refreshes those too, so "Request to join" becomes "Leave" the moment an
 * Owner or Host admits them.
 */
function useMembershipFollowsFeed(handle: string | null) {
  const queries = useQueryClient();
  const { events } = useSpaceFeed();
  const seen = useRef<number | null>(null);
  useEffect(() => {
    const newest = events[events.length - 1]?.cursor ?? 0;
    const since = seen.current;
    seen.current = newest;
    if (since === null || handle === null) return;
    const mine = events.some((e) => e.cursor > since && e.subjects.includes(`member:${handle}`) && /^space_(member|join)_/.test(e.type));
    if (mine) void queries.invalidateQueries({ queryKey: standingKeys.memberships });
  }, [events, handle, queries]);
}

/**
 * Join, request, accept, withdraw or leave, by the Space's join policy and the
 * caller's standing (protocol: Space admission). Only moves the server allows
 * from the current state are offered.
 */
function Admission({ space }: { space: Space }) {
  const standing = useStanding(space.slug);
  const queries = useQueryClient();
  const { busy, error, run } = useAction();
  const [done, setDone] = useState('');
  const [leaving, setLeaving] = useState(false);
  useMembershipFollowsFeed(standing.me?.handle ?? null);

  if (!standing.me) {
    return (
      <p>
        <Link to={signInPath(spacePath(space.slug))}>Sign in</Link> to join this Space.
      </p>
    );
  }
  if (space.status !== 'active') return null;

  const refresh = () =>
    Promise.all([
      queries.invalidateQueries({ queryKey: standingKeys.memberships }),
      queries.invalidateQueries({ queryKey: spaceKeys.all(space.slug) }),
      queries.invalidateQueries({ queryKey: spaceKeys.list }),
    ]);
  const join = async (message: string) => {
    setDone('');
    if (await run(() => call(client.POST('/v0/spaces/{slug}/join', { params: { path: { slug: space.slug } } })))) {
      await refresh();
      setDone(message);
    }
  };
  const leave = async (message: string) => {
    await call(client.POST('/v0/spaces/{slug}/leave', { params: { path: { slug: space.slug } } }));
    await refresh();
    setLeaving(false);
    setDone(message);
  };
  const withdraw = async (message: string) => {
    setDone('');
    await run(() => leave(message));
  };

  let controls = null;
  switch (standing.membership) {
    case 'admitted':
      controls = (
        <>
          <p>You are a member of this Space.</p>
          <button type="button" className="secondary" onClick={() => setLeaving(true)}>
            Leave
          </button>
        </>
      );
      break;
    case 'invited':
      controls = (
        <>
          <p>You have been invited to this Space.</p>
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => void join('You joined the Space.')}>
              Accept the invitation
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => void withdraw('You declined the invitation.')}>
              Decline
            </button>
          </div>
        </>
      );
      break;
    case 'requested':
      controls = (
        <>
          <p>You asked to join. An Owner or Host of this Space will admit you or decline.</p>
          <button type="button" className="secondary" disabled={busy} onClick={() => void withdraw('You withdrew your request.')}>
            Withdraw the request
          </button>
        </>
      );
      break;
    case 'removed':
      controls = <p>You were removed from this Space. An Owner or Host may invite you back.</p>;
      break;
    default:
      controls =
        space.join_policy === 'open' ? (
          <button type="button" disabled={busy} onClick={() => void join('You joined the Space.')}>
            Join
          </button>
        ) : space.join_policy === 'request' ? (
          <button type="button" disabled={busy} onClick={() => void join('Your request was sent to the Owners and Hosts of this Space.')}>
            Request to join
          </button>
        ) : standing.ownerOrHost ? (
          <>
            <p>You see this invite-only Space as its Owner or Host, and may join it without an invitation.</p>
            <button type="button" disabled={busy} onClick={() => void join('You joined the Space.')}>
              Join
            </button>
          </>
        ) : null;
  }

  return (
    <div className="admission">
      {controls}
      <ErrorMessage>{error}</ErrorMessage>
      {done ? <Notice>{done}</Notice> : null}
      {leaving ? (
        <ConfirmDialog
          title={`Leave ${space.name}?`}
          confirmLabel="Leave"
          danger
          onCancel={() => setLeaving(false)}
          onConfirm={() => leave('You left the Space.')}
        >
          <p>
            {space.join_policy === 'open'
              ? 'You can join again at any time.'
              : space.join_policy === 'request'
                ? 'To come back you will have to ask again.'
                : 'To come back an Owner or Host has to invite you again.'}
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
