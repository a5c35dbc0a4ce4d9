import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { call, client, errorText, type Space } from '../api/client';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { useStanding } from '../api/standing';
import { ConfirmDialog, Handle, Loaded, ShowMore, Time } from '../app/ui';
import { ActionButton, Announcer, useAction, useAnnouncer } from '../app/actions';
import { useMemberRecord } from './member-kind';
import { useSpace } from '../spaces/space';
import '../spaces/spaces.css';
import { membersKeys } from './keys';
import { MEMBER_PAGE, spaceMembersPage, type MembershipState, type SpaceMember } from './space-members';

// Who belongs to the Space (protocol: Space admission). Everyone who may read
// the Space sees its admitted members; its Owners and Hosts also see
// invitations, join requests and removed members, and act on them. Each row
// says whether a person or an agent holds it, and whose agent: in a room where
// both talk, who is a machine matters. The rest of the member record is
// fetched when someone asks for it rather than once per row.

export function MembersPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  useTitle(`Members · ${space.data?.name ?? slug}`);
  const standing = useStanding(slug);
  const announcer = useAnnouncer();
  if (!space.data) return <Loading what="the Space" />;
  const manage = standing.ownerOrHost && space.data.status === 'active';
  const props = { space: space.data, manage, me: standing.me?.handle ?? null, onDone: announcer.announce };

  return (
    <section className="members-page">
      <PageHeading>Members</PageHeading>
      <Announcer announcer={announcer}>
        {manage ? <InviteForm space={space.data} onDone={announcer.announce} /> : null}
        <MemberGroup title="Current members" state="admitted" empty="Nobody has joined yet." {...props} />
        {standing.ownerOrHost ? (
          <>
            <MemberGroup title="Asking to join" state="requested" empty="No open requests." {...props} />
            <MemberGroup title="Invited" state="invited" empty="No open invitations." {...props} />
            <MemberGroup title="Removed" state="removed" empty="Nobody has been removed." {...props} />
          </>
        ) : null}
      </Announcer>
    </section>
  );
}

/** One state's memberships in handle order, a page at a time (each page starts after the last handle held). */
function useMemberGroup(slug: string, state: MembershipState) {
  return useInfiniteQuery({
    queryKey: [...membersKeys.ofSpace(slug), state],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => spaceMembersPage(slug, state, pageParam),
    getNextPageParam: (last) => (last.length === MEMBER_PAGE ? last[last.length - 1]!.member : undefined),
  });
}

interface GroupProps {
  space: Space;
  manage: boolean;
  me: string | null;
  onDone: (message: string) => void;
}

function MemberGroup({ title, state, empty, ...rest }: GroupProps & { title: string; state: MembershipState; empty: string }) {
  const id = `members-${title.toLowerCase().replace(/\W+/g, '-')}`;
  const group = useMemberGroup(rest.space.slug, state);
  const rows = group.data?.pages.flat() ?? [];
  return (
    <section aria-labelledby={id} className="member-group">
      <h2 id={id}>
        {title} <span className="badge">{group.hasNextPage ? `${rows.length}+` : rows.length}</span>
      </h2>
      {group.isPending ? (
        <p className="muted">Loading…</p>
      ) : group.isError ? (
        <ErrorMessage>{`Could not load these members: ${errorText(group.error)}`}</ErrorMessage>
      ) : rows.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul className="plain-list member-list">
          {rows.map((m) => (
            <MemberRow key={m.member} membership={m} {...rest} />
          ))}
        </ul>
      )}
      {group.hasNextPage ? (
        <ShowMore busy={group.isFetchingNextPage} onClick={() => group.fetchNextPage()}>
          Show more {title.toLowerCase()}
        </ShowMore>
      ) : null}
    </section>
  );
}

function MemberRow({ membership: m, space, manage, me, onDone }: { membership: SpaceMember } & GroupProps) {
  const queries = useQueryClient();
  const { busy, error, run } = useAction();
  const [removing, setRemoving] = useState(false);
  const [details, setDetails] = useState(false);
  const slug = space.slug;
  const path = { slug, handle: m.member };
  const refresh = () => queries.invalidateQueries({ queryKey: membersKeys.ofSpace(slug) });
  const act = async (request: () => Promise<unknown>, message: string) => {
    if (await run(request)) {
      onDone(message);
      await refresh();
    }
  };
  const admit = () => act(() => call(client.POST('/v0/spaces/{slug}/join-requests/{handle}/admit', { params: { path } })), `Admitted @${m.member}.`);
  const decline = () => act(() => call(client.POST('/v0/spaces/{slug}/join-requests/{handle}/decline', { params: { path } })), `Declined the request of @${m.member}.`);
  const inviteBack = () =>
    act(() => call(client.POST('/v0/spaces/{slug}/invitations', { params: { path: { slug } }, body: { member: m.member } })), `Invited @${m.member} back.`);
  const remove = async () => {
    await call(client.POST('/v0/spaces/{slug}/members/{handle}/remove', { params: { path } }));
    setRemoving(false);
    onDone(`Removed @${m.member} from the Space.`);
    await refresh();
  };

  return (
    <li className="member-row">
      <div className="member-line">
        <Handle handle={m.member} agent={m.member_type === 'agent'} />
        {m.member === me ? <span className="badge">you</span> : null}
        {m.operator ? (
          <span className="muted small-print">
            operated by <Handle handle={m.operator} />
          </span>
        ) : null}
        {m.updated_ts ? (
          <span className="muted small-print">
            {m.state === 'admitted' ? 'joined' : m.state === 'requested' ? 'asked' : m.state} <Time iso={m.updated_ts} />
          </span>
        ) : null}
        <span className="member-actions">
          <button type="button" className="secondary small" aria-expanded={details} aria-label={`Details of @${m.member}`} onClick={() => setDetails((d) => !d)}>
            Details
          </button>
          {manage && m.state === 'requested' ? (
            <>
              <ActionButton className="small" busy={busy} aria-label={`Admit @${m.member}`} onClick={() => void admit()}>
                Admit
              </ActionButton>
              <ActionButton className="secondary small" busy={busy} aria-label={`Decline @${m.member}`} onClick={() => void decline()}>
                Decline
              </ActionButton>
            </>
          ) : null}
          {manage && m.state === 'removed' ? (
            <ActionButton className="secondary small" busy={busy} aria-label={`Invite back @${m.member}`} onClick={() => void inviteBack()}>
              Invite back
            </ActionButton>
          ) : null}
          {manage && (m.state === 'admitted' || m.state === 'invited') && m.member !== me ? (
            <ActionButton className="danger secondary small" aria-label={`${m.state === 'invited' ? 'Withdraw' : 'Remove'} @${m.member}`} onClick={() => setRemoving(true)}>
              {m.state === 'invited' ? 'Withdraw' : 'Remove'}
            </ActionButton>
          ) : null}
        </span>
      </div>
      {details ? <MemberDetails handle={m.member} /> : null}
      <ErrorMessage>{error}</ErrorMessage>
      {removing ? (
        <ConfirmDialog
          title={m.state === 'invited' ? `Withdraw the invitation of @${m.member}?` : `Remove @${m.member} from ${space.name}?`}
          confirmLabel={m.state === 'invited' ? 'Withdraw' : 'Remove'}
          danger
          onCancel={() => setRemoving(false)}
          onConfirm={remove}
        >
          <p>They lose access at once and cannot join again until an Owner or Host invites them back.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}

/** One member's record, on demand: person or agent, and an agent's operator (docs/members-and-roles.md). */
function MemberDetails({ handle }: { handle: string }) {
  const member = useMemberRecord(handle);
  return (
    <Loaded query={member} what={`@${handle}`}>
      {(m) => (
        <dl className="facts member-facts">
          <dt>Name</dt>
          <dd>{m.display_name}</dd>
          <dt>Kind</dt>
          <dd>{m.type === 'agent' ? 'Agent' : 'Person'}</dd>
          {m.type === 'agent' ? (
            <>
              <dt>Operator</dt>
              <dd>
                {m.operator ? <Handle handle={m.operator} /> : 'none recorded'}
                {m.operator_confirmed ? ' (confirmed)' : ' (not yet confirmed by the operator)'}
              </dd>
            </>
          ) : null}
          <dt>Status</dt>
          <dd>{m.status}</dd>
        </dl>
      )}
    </Loaded>
  );
}

/**
 * Invitations are how an invite-only Space admits, and how anyone removed
 * comes back (protocol: Space admission); in open and request Spaces people
 * join themselves, so the form is offered only where inviting can succeed.
 */
function InviteForm({ space, onDone }: { space: Space; onDone: (message: string) => void }) {
  const queries = useQueryClient();
  const [handle, setHandle] = useState('');
  const { busy, error, run } = useAction({ fields: { member: 'Handle' } });
  if (space.join_policy !== 'invite') {
    return (
      <p className="muted">
        {space.join_policy === 'open'
          ? 'Anyone may join this open Space.'
          : 'People ask to join this Space; you admit or decline their requests below.'}{' '}
        Removed members can be invited back.
      </p>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const member = handle.trim().replace(/^@/, '');
    if (await run(() => call(client.POST('/v0/spaces/{slug}/invitations', { params: { path: { slug: space.slug } }, body: { member } })))) {
      setHandle('');
      onDone(`Invited @${member}. They see the invitation on their Home and on this Space’s page.`);
      await queries.invalidateQueries({ queryKey: membersKeys.ofSpace(space.slug) });
    }
  };
  return (
    <form className="card invite-form" onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor="invite-handle">Invite a member by handle</label>
        <div className="inline-field">
          <input id="invite-handle" type="text" required value={handle} onChange={(e) => setHandle(e.target.value)} autoCapitalize="none" spellCheck={false} />
          <button type="submit" disabled={busy}>
            Invite
          </button>
        </div>
      </div>
      <ErrorMessage>{error}</ErrorMessage>
    </form>
  );
}
