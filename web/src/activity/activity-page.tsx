import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { useParams } from 'wouter';
import { call, client, type Event } from '../api/client';
import '../conversations/conversations.css';
import { excerpt } from '../inbox/items';
import { useSpaceFeed } from '../api/live';
import { useHistory } from '../api/older';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { Link } from '../app/router';
import { useStanding } from '../api/standing';
import { ShowMore, Time } from '../app/ui';
import { spacePath } from '../spaces/space';
import { rootKeys } from '../api/keys';

// The Space's activity: its event feed (followed live by the Space layout) as
// a timeline, newest first, one plain sentence per event, linking to the
// place it concerns where there is one. The feed follower keeps the newest
// 500 events; the page shows them a hundred at a time, and past them reads
// further back a hundred at a time (`newest` with `before`), until the feed's
// first event.

const STEP = 100;

export function ActivityPage() {
  const { slug } = useParams<{ slug: string }>();
  useTitle('Activity');
  // A Space of its own: what was read further back belongs to one Space.
  return <Timeline key={slug} slug={slug} />;
}

function Timeline({ slug }: { slug: string }) {
  const feed = useSpaceFeed();
  const [shown, setShown] = useState(STEP);
  const history = useHistory(feed, STEP, (before) =>
    call(client.GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query: { newest: STEP, before } } })),
  );
  const events = useMemo(() => [...history.events].reverse(), [history.events]);
  const hasTasks = events.some((e) => e.type.startsWith('task_') || e.type.startsWith('pin_proposal'));
  const titles = useTaskTitles(slug, hasTasks);
  const standing = useStanding(slug);
  const olderLeft = events.length > shown || history.olderLeft;

  const showOlder = async () => {
    const wanted = shown + STEP;
    if (events.length < wanted) await history.readOlder();
    setShown(wanted);
  };

  return (
    <section className="activity">
      <PageHeading>Activity</PageHeading>
      <p className="muted">Everything that happened in this Space, newest first. New activity appears here as it happens.</p>
      <ErrorMessage>{feed.error ? `Could not follow the Space's activity: ${feed.error.detail}` : null}</ErrorMessage>
      {!feed.caughtUp && events.length === 0 ? (
        <Loading what="the activity" />
      ) : events.length === 0 ? (
        <p>Nothing has happened here yet.</p>
      ) : (
        <>
          <ol className="timeline" aria-label="Activity, newest first">
            {events.slice(0, shown).map((event) => (
              <li key={event.cursor}>
                <p>{describe(event, slug, titles.data ?? new Map(), standing.me?.handle ?? null)}</p>
                <Time iso={event.created_ts} />
                {event.type === 'message_posted' && event.payload.body !== undefined ? <p className="quote">“{excerpt(event.payload.body, 160)}”</p> : null}
              </li>
            ))}
          </ol>
          <ErrorMessage>{history.error ? `Could not read older activity: ${history.error}` : null}</ErrorMessage>
          {olderLeft ? (
            <ShowMore busy={history.loading} busyText="Reading older activity…" onClick={showOlder}>
              Show older activity
            </ShowMore>
          ) : (
            <p className="muted">That is everything since the Space was proposed.</p>
          )}
        </>
      )}
    </section>
  );
}

/** Task titles for the sentences (task events carry only the id). */
function useTaskTitles(slug: string, enabled: boolean) {
  return useQuery({
    queryKey: [...rootKeys.space(slug), 'activity', 'task-titles'],
    enabled,
    queryFn: async () => {
      const { tasks } = await call(client.GET('/v0/spaces/{slug}/tasks', { params: { path: { slug }, query: { limit: 500 } } }));
      return new Map(tasks.map((t) => [t.id, t.title]));
    },
  });
}

const who = (handle: string | null | undefined) => (handle ? `@${handle}` : 'Someone');

/** Who acted: the member, or what acted instead (the steward key, the admin CLI, registration). */
function actor(event: Event): string {
  if (event.actor) return `@${event.actor}`;
  const via = (event.payload as { via?: string }).via;
  if (via === 'steward_key') return 'The host steward';
  if (via === 'admin_cli') return 'An administrator';
  if (via === 'registration') return 'Registration';
  return 'Someone';
}

/** One event in words. Member-written text (names, reasons, bodies) is shown as text. */
export function describe(event: Event, slug: string, titles: Map<number, string>, reader: string | null): ReactNode {
  const by = actor(event);
  const place = (rest: string, label: ReactNode) => <Link to={spacePath(slug, rest)}>{label}</Link>;
  const task = (id: number) => {
    const title = titles.get(id);
    return place(`/tasks/${id}`, title ? `task “${title}”` : `task #${id}`);
  };
  const resource = (id: string, name: string) => place(`/resources/${encodeURIComponent(id)}`, `“${name}”`);
  const reason = (text: string) => (text ? ` (“${text}”)` : '');
  switch (event.type) {
    case 'space_proposed':
      return `${by} proposed the Space “${event.payload.name}” (${event.payload.join_policy} to join).`;
    case 'space_approved':
      return <>{by} approved the Space; it is active, with {place('/channels/general', '#general')}.</>;
    case 'space_archived':
      return `${by} archived the Space${reason(event.payload.reason)}.`;
    case 'space_restored':
      return `${by} restored the Space.`;
    case 'space_review_policy_changed':
      return `${by} changed the review policy from ${event.payload.previous_review_policy} to ${event.payload.review_policy}${reason(event.payload.reason)}.`;
    case 'space_member_invited':
      return `${by} invited ${who(event.payload.member)}.`;
    case 'space_join_requested':
      return `${who(event.payload.member)} asked to join.`;
    case 'space_member_admitted':
      return event.actor === event.payload.member ? `${who(event.payload.member)} joined.` : `${by} admitted ${who(event.payload.member)}.`;
    case 'space_join_declined':
      return `${by} declined ${who(event.payload.member)}’s request to join.`;
    case 'space_member_left':
      return `${who(event.payload.member)} left.`;
    case 'space_member_removed':
      return `${by} removed ${who(event.payload.member)}.`;
    case 'member_registered':
      return `${who(event.payload.handle)} was registered (${event.payload.type}).`;
    case 'member_approved':
      return `${by} approved ${who(event.payload.handle)}.`;
    case 'agent_operator_confirmed':
      return `${who(event.payload.operator)} vouched for the agent ${who(event.payload.handle)}.`;
    case 'member_suspended':
      return `${by} suspended ${who(event.payload.handle)}.`;
    case 'member_reinstated':
      return `${by} reinstated ${who(event.payload.handle)}.`;
    case 'role_assigned':
      return `${by} made ${who(event.payload.member)} ${event.payload.role}${event.payload.space ? ' of this Space' : ' host-wide'}.`;
    case 'role_revoked':
      return `${by} revoked the ${event.payload.role} role of ${who(event.payload.member)}.`;
    case 'client_credential_created':
      return `${who(event.payload.member)} approved a new API credential for “${event.payload.client_name}”.`;
    case 'client_credential_revoked':
      return `${by} revoked an API credential of ${who(event.payload.member)}.`;
    case 'task_created':
      return <>{by} created {task(event.payload.id)}.</>;
    case 'task_claimed':
      return <>{who(event.payload.claimant)} claimed {task(event.payload.id)}.</>;
    case 'task_released':
      return event.payload.released_by === event.payload.claimant ? (
        <>{who(event.payload.claimant)} released {task(event.payload.id)}.</>
      ) : (
        <>
          {who(event.payload.released_by)} released {who(event.payload.claimant)}’s claim on {task(event.payload.id)}.
        </>
      );
    case 'task_submitted':
      return <>{who(event.payload.worker)} submitted {task(event.payload.id)} for completion.</>;
    case 'task_completed':
      return (
        <>
          {who(event.payload.completer)} completed {task(event.payload.id)}, done by {who(event.payload.worker)} ({event.payload.assurance.replaceAll('_', ' ')}).
        </>
      );
    case 'task_reopened':
      return <>{by} reopened {task(event.payload.id)}.</>;
    case 'task_cancelled':
      return <>{by} cancelled {task(event.payload.id)}.</>;
    case 'channel_created':
      return (
        <>
          {by} created the channel {place(`/channels/${encodeURIComponent(event.payload.name)}`, `#${event.payload.name}`)}
          {event.payload.topic ? ` about “${event.payload.topic}”` : ''}.
        </>
      );
    case 'message_posted': {
      const author = who(event.payload.author);
      if (event.payload.channel !== null) {
        return (
          <>
            {author} posted in {place(`/channels/${encodeURIComponent(event.payload.channel)}`, `#${event.payload.channel}`)}.
          </>
        );
      }
      if (event.payload.task !== null) return <>{author} commented on {task(event.payload.task)}.</>;
      // Only the two members of a direct message ever see its event.
      const to = event.payload.direct_members?.find((h) => h !== event.payload.author) ?? null;
      const conversation = reader === event.payload.author ? to : event.payload.author;
      const message = conversation ? place(`/dm/${encodeURIComponent(conversation)}`, 'a direct message') : 'a direct message';
      return (
        <>
          {author} sent {message} to {who(to)}.
        </>
      );
    }
    case 'message_edited':
    case 'message_deleted':
    case 'reaction_added':
    case 'reaction_removed': {
      const { channel, task: inTask } = event.payload;
      const where =
        channel !== null ? place(`/channels/${encodeURIComponent(channel)}`, `#${channel}`) : inTask !== null ? task(inTask) : 'a direct message';
      if (event.type === 'message_edited') return <>{by} edited a message in {where}.</>;
      if (event.type === 'message_deleted') return <>{by} deleted a message in {where}.</>;
      return (
        <>
          {by} {event.type === 'reaction_added' ? 'reacted' : 'took back a reaction'} {event.payload.emoji} to a message in {where}.
        </>
      );
    }
    case 'resource_created':
      return <>{by} created the Resource {resource(event.payload.resource_id, event.payload.name)}.</>;
    case 'resource_version_added':
      return (
        <>
          {by} saved version {event.payload.version} of {resource(event.payload.resource_id, event.payload.name)}.
        </>
      );
    case 'space_pins_updated':
      return <>{by} changed the {place('/pins', 'pins')}{reason(event.payload.reason)}.</>;
    case 'pin_proposed':
      return <>{who(event.payload.proposed_by)} proposed pinning a Resource ({task(event.payload.id)}).</>;
    case 'pin_proposal_accepted':
      return <>{by} accepted {who(event.payload.proposed_by)}’s {task(event.payload.id)}.</>;
    case 'pin_proposal_declined':
      return <>{by} declined {who(event.payload.proposed_by)}’s {task(event.payload.id)}{reason(event.payload.reason)}.</>;
    case 'credential_approval_created':
      return `${by} approved one ${event.payload.method} request to ${event.payload.host} for ${who(event.payload.member_handle)}.`;
    case 'credential_ticket_issued':
      return `The credential gateway issued a ticket for one ${event.payload.method} request to ${event.payload.host}.`;
    default:
      return `${by}: ${(event as { type: string }).type.replaceAll('_', ' ')}.`;
  }
}
