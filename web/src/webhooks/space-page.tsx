import { useParams } from 'wouter';
import { PageHeading, useTitle } from '../app/page';
import { Link, signInPath } from '../app/router';
import { spacePath, useSpace } from '../spaces/space';
import { useStanding } from '../api/standing';
import { mayActOnTasks } from '../tasks/rules';
import { Loaded } from '../app/ui';
import { useEndpoints, useSpaceSubscriptions } from './queries';
import { SubscriptionForm } from './subscription-form';
import { SubscriptionList } from './subscriptions';
import './webhooks.css';

// A Space's webhooks as the reader has them: each member owns their own
// subscriptions (docs/webhooks.md), so this page lists the reader's, with
// their delivery histories, and lets those who may act in the Space subscribe.

export function SpaceWebhooksPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  const standing = useStanding(slug);
  useTitle(space.data ? `Webhooks · ${space.data.name}` : 'Webhooks');
  const subscriptions = useSpaceSubscriptions(slug);
  const endpoints = useEndpoints();

  if (standing.me === null) {
    return (
      <section>
        <PageHeading>Webhooks</PageHeading>
        <p>
          <Link to={signInPath(spacePath(slug, '/webhooks'))}>Sign in</Link> to subscribe to this Space&rsquo;s events.
        </p>
      </section>
    );
  }
  // Subscribing follows the Space action gate, like any write here.
  const mayCreate = space.data ? mayActOnTasks(space.data, standing) : false;

  return (
    <section className="webhooks-page">
      <PageHeading>Webhooks</PageHeading>
      <p>
        Your subscriptions to this Space&rsquo;s events. Each wakes one of your <Link to="/webhooks">endpoints</Link> when events
        may concern you; your receiver then reads the Space feed with its own credential. Other members&rsquo; subscriptions are
        theirs, and are not shown.
      </p>
      <section aria-labelledby="space-subs-heading">
        <h2 id="space-subs-heading">Your subscriptions</h2>
        <Loaded query={subscriptions} what="your subscriptions">
          {(subs) => <SubscriptionList collection={{ kind: 'space', slug }} subscriptions={subs} endpoints={endpoints.data ?? []} />}
        </Loaded>
        {mayCreate ? (
          <Loaded query={endpoints} what="your endpoints">
            {(list) => <SubscriptionForm collection={{ kind: 'space', slug }} endpoints={list} />}
          </Loaded>
        ) : (
          <p className="muted">Only members who may act in this Space can subscribe to it.</p>
        )}
      </section>
    </section>
  );
}
