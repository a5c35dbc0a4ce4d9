import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Route, Switch, useParams } from 'wouter';
import { ApiError, call, client, errorText, type Space } from '../api/client';
import { SpaceFeedProvider } from '../api/live';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { NotFoundPage } from '../app/not-found';
import { Link, useLocation } from '../app/router';
import { spacePath, useSpace } from './space';
import { standingKeys, useStanding } from '../api/standing';
import { ActivityPage } from '../activity/activity-page';
import { ChannelPage, DirectMessagePage } from '../conversations/conversation-page';
import { ConversationsNav } from '../conversations/nav';
import { FrontPage } from './front-page';
import { MembersPage } from '../members/members-page';
import { PinsPage } from '../pins/pins-page';
import { ResourceEditPage } from '../resources/edit-page';
import { ResourceHistoryPage } from '../resources/history-page';
import { ResourceListPage } from '../resources/list-page';
import { NewResourcePage } from '../resources/new-page';
import { ResourcePage } from '../resources/resource-page';
import { SpaceSettingsPage } from './settings-page';
import { TaskBoardPage } from '../tasks/board';
import { TaskPage } from '../tasks/task-page';
import { ApprovalsPage } from '../approvals/approvals-page';
import { SpaceWebhooksPage } from '../webhooks/space-page';

// One Space: a sidebar of its places and the page for the current one. The
// Space record is public (name, purpose, charter, pins); its content follows
// the join policy, so an invite-only Space shows a non-member nothing but
// that it is invite-only. Everything inside follows the Space feed live.

export function SpaceLayout() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  const standing = useStanding(slug);

  if (space.isPending || !standing.loaded) return <Loading what="the Space" />;
  if (space.isError) {
    if (space.error instanceof ApiError && space.error.status === 404) return <NotFoundPage />;
    return <ErrorMessage>{`Could not load the Space: ${errorText(space.error)}`}</ErrorMessage>;
  }
  const readable = space.data.join_policy !== 'invite' || standing.membership === 'admitted' || standing.ownerOrHost;
  if (!readable) return <InviteOnly space={space.data} invited={standing.membership === 'invited'} signedIn={standing.me !== null} />;

  return (
    <SpaceFeedProvider slug={slug}>
      <div className="space-layout">
        <SpaceSidebar space={space.data} ownerOrHost={standing.ownerOrHost} member={standing.membership === 'admitted'} />
        <div className="space-content">
          <Switch>
            <Route path="/" component={FrontPage} />
            <Route path="/activity" component={ActivityPage} />
            <Route path="/channels/:channel" component={ChannelPage} />
            <Route path="/dm/:handle" component={DirectMessagePage} />
            <Route path="/tasks" component={TaskBoardPage} />
            <Route path="/tasks/:id" component={TaskPage} />
            <Route path="/resources" component={ResourceListPage} />
            <Route path="/resources/new" component={NewResourcePage} />
            <Route path="/resources/:id" component={ResourcePage} />
            <Route path="/resources/:id/edit" component={ResourceEditPage} />
            <Route path="/resources/:id/history" component={ResourceHistoryPage} />
            <Route path="/pins" component={PinsPage} />
            <Route path="/members" component={MembersPage} />
            <Route path="/settings" component={SpaceSettingsPage} />
            <Route path="/webhooks" component={SpaceWebhooksPage} />
            <Route path="/approvals" component={ApprovalsPage} />
            <Route component={NotFoundPage} />
          </Switch>
        </div>
      </div>
    </SpaceFeedProvider>
  );
}

function SpaceSidebar({ space, ownerOrHost, member }: { space: Space; ownerOrHost: boolean; member: boolean }) {
  const { pathname } = useLocation();
  const base = spacePath(space.slug);
  const item = (rest: string, label: string) => {
    const to = base + rest;
    const current = rest === '' ? pathname === base || pathname === `${base}/` : pathname === to || pathname.startsWith(`${to}/`);
    return (
      <li>
        <Link to={to} aria-current={current ? 'page' : undefined}>
          {label}
        </Link>
      </li>
    );
  };
  const places = (
    <>
      <ul>
        {item('', 'Front page')}
        {item('/activity', 'Activity')}
        {item('/tasks', 'Tasks')}
        {item('/resources', 'Resources')}
        {item('/members', 'Members')}
        {item('/pins', 'Pins')}
        {member ? item('/webhooks', 'Webhooks') : null}
        {ownerOrHost ? item('/approvals', 'Approvals') : null}
        {ownerOrHost ? item('/settings', 'Settings') : null}
      </ul>
      <ConversationsNav space={space} />
    </>
  );
  return (
    <nav className="space-sidebar" aria-label={`Space ${space.name}`}>
      <p className="space-name">
        <Link to={base}>{space.name}</Link>
        {space.status !== 'active' ? <span className="badge">{space.status}</span> : null}
      </p>
      {/* Phones: the places fold away behind one control, so the page itself comes first. */}
      <details className="space-menu">
        <summary>Places in this Space</summary>
        {places}
      </details>
      <div className="space-places">{places}</div>
    </nav>
  );
}

function InviteOnly({ space, invited, signedIn }: { space: Space; invited: boolean; signedIn: boolean }) {
  useTitle(space.name);
  const queries = useQueryClient();
  const accept = useMutation({
    mutationFn: () => call(client.POST('/v0/spaces/{slug}/join', { params: { path: { slug: space.slug } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: standingKeys.memberships }),
  });
  return (
    <section className="narrow space-gate">
      <PageHeading>{space.name}</PageHeading>
      <p>This Space is invite-only: its conversations, tasks and Resources are for its members.</p>
      {invited ? (
        <>
          <p>You have been invited.</p>
          <button type="button" onClick={() => accept.mutate()}>
            Accept the invitation
          </button>
        </>
      ) : signedIn ? (
        <p>An Owner or Host of this Space can invite you.</p>
      ) : (
        <p>
          <Link to={`/sign-in?next=${encodeURIComponent(spacePath(space.slug))}`}>Sign in</Link> if you are a member.
        </p>
      )}
      <ErrorMessage>{accept.isError ? errorText(accept.error) : ''}</ErrorMessage>
    </section>
  );
}
