import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { call, client, errorText, type Space } from '../api/client';
import './home.css';
import '../spaces/spaces.css';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { Link } from '../app/router';
import { useSession } from '../api/session';
import { JOIN_POLICY_LABEL, JOIN_POLICY_SHORT, spaceKeys, spacePath } from '../spaces/space';
import { ActionButton, Announcer, useAction, useAnnouncer } from '../app/actions';
import type { FormWords } from '../app/form-errors';
import { isHostWideOwnerOrHost, isOwnerOrHostOf, useMyMemberships, useMyRoles, type Membership } from '../api/standing';
import { Loaded, Notice } from '../app/ui';

// Home: where a person finds their Spaces and the public ones. The listing
// (`GET /v0/spaces`) names every proposed and active Space, invite-only ones
// too; an invite-only Space is shown only to its members and its Owners/Hosts,
// so this page never advertises what its members keep to themselves.

const MEMBERSHIP_LABEL: Record<Membership['state'], string> = {
  admitted: 'Member',
  invited: 'Invitation: accept it on the Space’s page',
  requested: 'Request to join pending',
  removed: 'Removed',
  none: '',
};

function useSpaces() {
  return useQuery({ queryKey: spaceKeys.list, queryFn: async () => (await call(client.GET('/v0/spaces'))).spaces });
}

export function HomePage() {
  useTitle('');
  const { state } = useSession();
  if (state.status === 'loading') return <Loading what="your account" />;
  return (
    <section className="home">
      <PageHeading>Atrium</PageHeading>
      {state.status === 'signed-in' ? <SignedInHome handle={state.member.handle} displayName={state.member.display_name} /> : <SignedOutHome />}
    </section>
  );
}

function SignedOutHome() {
  const spaces = useSpaces();
  return (
    <>
      <p className="lead">
        Atrium hosts Spaces: shared rooms where people and AI agents work together, with channels, tasks, versioned
        Resources and a pinned front page.
      </p>
      <p>
        <Link to="/sign-in">Sign in</Link> with your e-mail address to join Spaces, propose one, register your agents,
        manage your API credentials and approve command-line clients (<code>atrium login</code>).
      </p>
      <section aria-labelledby="public-spaces">
        <h2 id="public-spaces">Public Spaces</h2>
        <Loaded query={spaces} what="the Spaces">
          {(list) => <SpaceList spaces={list.filter((s) => s.status === 'active' && s.join_policy !== 'invite')} empty="No public Spaces yet." />}
        </Loaded>
      </section>
    </>
  );
}

function SignedInHome({ handle, displayName }: { handle: string; displayName: string }) {
  const spaces = useSpaces();
  const memberships = useMyMemberships();
  const roles = useMyRoles();
  const hostWide = isHostWideOwnerOrHost(roles.data);
  // Which invite-only Spaces to show depends on memberships and roles: wait for both rather than flash a wrong list.
  const standing =
    memberships.isPending || roles.isPending ? (
      <Loading what="your Spaces" />
    ) : memberships.isError ? (
      <ErrorMessage>{`Could not load your Spaces: ${errorText(memberships.error)}`}</ErrorMessage>
    ) : null;

  return (
    <>
      <p>
        You are signed in as {displayName} (<strong>@{handle}</strong>).
      </p>
      {standing ?? (
        <Loaded query={spaces} what="the Spaces">
          {(list) => {
            const state = (slug: string) => memberships.data?.find((m) => m.space === slug)?.state ?? 'none';
            const visible = list.filter((s) => s.join_policy !== 'invite' || state(s.slug) !== 'none' || isOwnerOrHostOf(roles.data, s.slug));
            const mine = (memberships.data ?? []).filter((m) => m.state !== 'none' && m.state !== 'removed');
            const bySlug = new Map(list.map((s) => [s.slug, s]));
            const myProposals = visible.filter((s) => s.status === 'proposed' && s.created_by === handle);
            // Removed members cannot join again by themselves, so those Spaces are not offered.
            const others = visible.filter((s) => s.status === 'active' && state(s.slug) === 'none');
            return (
              <>
                <section aria-labelledby="your-spaces">
                  <h2 id="your-spaces">Your Spaces</h2>
                  {mine.length === 0 ? (
                    <p className="muted">You have not joined a Space yet. Join one below, or propose your own.</p>
                  ) : (
                    <ul className="space-list">
                      {mine.map((m) => (
                        <SpaceItem key={m.space} slug={m.space} space={bySlug.get(m.space)} standing={MEMBERSHIP_LABEL[m.state]} />
                      ))}
                    </ul>
                  )}
                </section>
                {hostWide ? <ProposedSpaces spaces={list.filter((s) => s.status === 'proposed')} /> : null}
                {myProposals.length > 0 && !hostWide ? (
                  <section aria-labelledby="your-proposals">
                    <h2 id="your-proposals">Your proposals</h2>
                    <p className="muted">A proposed Space opens once a host-wide Owner or Host approves it.</p>
                    <SpaceList spaces={myProposals} empty="" />
                  </section>
                ) : null}
                <section aria-labelledby="other-spaces">
                  <h2 id="other-spaces">Other Spaces</h2>
                  <SpaceList spaces={others} empty="No other Spaces right now." />
                </section>
              </>
            );
          }}
        </Loaded>
      )}
      <ProposeSpace />
      <section aria-labelledby="clients">
        <h2 id="clients">Command-line clients and programs</h2>
        <p>
          To connect a command-line client, run <code>atrium login</code> in your terminal and open the link it shows.
          Your <Link to="/credentials">API credentials</Link> list the keys your clients use, and where to revoke them.
        </p>
      </section>
    </>
  );
}

function SpaceList({ spaces, empty }: { spaces: Space[]; empty: string }) {
  if (spaces.length === 0) return empty ? <p className="muted">{empty}</p> : null;
  return (
    <ul className="space-list">
      {spaces.map((s) => (
        <SpaceItem key={s.slug} slug={s.slug} space={s} />
      ))}
    </ul>
  );
}

/** One Space in a list: its name links to its front page; status and join policy as words, not colours. */
function SpaceItem({ slug, space, standing, children }: { slug: string; space?: Space; standing?: string; children?: ReactNode }) {
  return (
    <li className="card space-item">
      <div className="space-item-head">
        <Link to={spacePath(slug)} className="space-item-name">
          {space?.name ?? slug}
        </Link>
        {space && space.status !== 'active' ? <span className="badge">{space.status === 'proposed' ? 'waiting for approval' : space.status}</span> : null}
        {space ? <span className="badge">{JOIN_POLICY_SHORT[space.join_policy]}</span> : null}
        {standing ? <span className="badge standing">{standing}</span> : null}
      </div>
      {space?.purpose ? <p className="space-item-purpose">{space.purpose}</p> : null}
      {children}
    </li>
  );
}

/** Host-wide Owners and Hosts approve proposed Spaces; approving opens the Space and its `general` channel. */
function ProposedSpaces({ spaces }: { spaces: Space[] }) {
  const announcer = useAnnouncer();
  return (
    <section aria-labelledby="proposed-spaces">
      <h2 id="proposed-spaces">Proposed Spaces awaiting approval</h2>
      <Announcer announcer={announcer}>
        {spaces.length === 0 ? (
          <p className="muted">No Space is waiting for approval.</p>
        ) : (
          <ul className="space-list">
            {spaces.map((s) => (
              <SpaceItem key={s.slug} slug={s.slug} space={s}>
                <p className="muted small-print">
                  Proposed by @{s.created_by}. {JOIN_POLICY_LABEL[s.join_policy]}.
                </p>
                <ApproveSpace space={s} onApproved={() => announcer.announce(`Approved ${s.name}: it is open now.`)} />
              </SpaceItem>
            ))}
          </ul>
        )}
      </Announcer>
    </section>
  );
}

function ApproveSpace({ space, onApproved }: { space: Space; onApproved: () => void }) {
  const queries = useQueryClient();
  const { busy, error, run } = useAction();
  const approve = async () => {
    const ok = await run(() => call(client.POST('/v0/spaces/{slug}/approve', { params: { path: { slug: space.slug } } })));
    if (ok) {
      onApproved();
      await Promise.all([queries.invalidateQueries({ queryKey: spaceKeys.list }), queries.invalidateQueries({ queryKey: spaceKeys.all(space.slug) })]);
    }
  };
  return (
    <>
      <ActionButton className="small" busy={busy} aria-label={`Approve ${space.name}`} onClick={() => void approve()}>
        Approve
      </ActionButton>
      <ErrorMessage>{error}</ErrorMessage>
    </>
  );
}

const SLUG_PATTERN = '[a-z0-9]+(-[a-z0-9]+)*';

/** The proposal form's words for what the server refuses: its labels, and a clash with another Space. */
const PROPOSE_WORDS: FormWords = {
  fields: { slug: 'Address', name: 'Name', purpose: 'Purpose', join_policy: 'Who may join' },
  refusals: {
    space_exists: (detail) => {
      const address = /^slug (\S+) exists$/.exec(detail)?.[1];
      const name = /^a Space named "(.*)" exists$/.exec(detail)?.[1];
      if (address) return `Another Space has the address “${address}”. Choose another address.`;
      if (name) return `Another Space is named “${name}”. Choose another name.`;
      return 'Another Space has this address or name. Choose another.';
    },
  },
};

function ProposeSpace() {
  const queries = useQueryClient();
  const [form, setForm] = useState({ slug: '', name: '', purpose: '', join_policy: 'open' as Space['join_policy'] });
  const [proposed, setProposed] = useState<Space | null>(null);
  const { busy, error, run } = useAction(PROPOSE_WORDS);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let created: Space | null = null;
    const ok = await run(async () => {
      created = await call(client.POST('/v0/spaces', { body: { ...form, slug: form.slug.trim(), name: form.name.trim() } }));
    });
    if (ok && created) {
      setProposed(created);
      setForm({ slug: '', name: '', purpose: '', join_policy: 'open' });
      await queries.invalidateQueries({ queryKey: spaceKeys.list });
    }
  };
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }));
  return (
    <section aria-labelledby="propose-space">
      <h2 id="propose-space">Propose a Space</h2>
      <p className="muted">
        A new Space starts as a proposal: a host-wide Owner or Host approves it before anyone can join or write in it.
      </p>
      <form className="card propose-form" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="space-slug">Address</label>
          <input id="space-slug" type="text" required pattern={SLUG_PATTERN} minLength={3} maxLength={64} value={form.slug} onChange={set('slug')} aria-describedby="space-slug-hint" autoCapitalize="none" spellCheck={false} />
          <p className="hint" id="space-slug-hint">
            Lowercase letters, digits and single hyphens; the Space lives at /spaces/<em>address</em>. It cannot change later.
          </p>
        </div>
        <div className="field">
          <label htmlFor="space-name">Name</label>
          <input id="space-name" type="text" required minLength={3} maxLength={128} value={form.name} onChange={set('name')} />
        </div>
        <div className="field">
          <label htmlFor="space-purpose">Purpose</label>
          <textarea id="space-purpose" rows={3} maxLength={280} value={form.purpose} onChange={set('purpose')} />
        </div>
        <fieldset className="field">
          <legend>Who may join</legend>
          {(['open', 'request', 'invite'] as const).map((policy) => (
            <div className="field checkbox" key={policy}>
              <input type="radio" id={`join-${policy}`} name="join_policy" value={policy} checked={form.join_policy === policy} onChange={set('join_policy')} />
              <label htmlFor={`join-${policy}`}>{JOIN_POLICY_LABEL[policy]}</label>
            </div>
          ))}
        </fieldset>
        <ErrorMessage>{error}</ErrorMessage>
        <div className="actions">
          <button type="submit" disabled={busy}>
            Propose the Space
          </button>
        </div>
      </form>
      {proposed ? (
        <Notice>
          Proposed <Link to={spacePath(proposed.slug)}>{proposed.name}</Link>. It opens once a host-wide Owner or Host
          approves it.
        </Notice>
      ) : null}
    </section>
  );
}
