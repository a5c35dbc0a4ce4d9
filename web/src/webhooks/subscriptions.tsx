import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call, client, errorText } from '../api/client';
import { ErrorMessage } from '../app/page';
import { ConfirmDialog, Notice, Time } from '../app/ui';
import { DeliveryHistory } from './deliveries';
import { webhooksKeys, type Endpoint, type Filter, type Subscription } from './queries';

// One subscription of either kind (a Space's events, or the member's own
// inbox), with the moves its state allows (docs/webhooks.md, "Subscriptions"):
// activate once (needs an active endpoint), then pause and resume; delete.

export type Collection = { kind: 'inbox' } | { kind: 'space'; slug: string };

export const collectionKey = (c: Collection) => (c.kind === 'inbox' ? webhooksKeys.inboxSubscriptions : webhooksKeys.spaceSubscriptions(c.slug));

async function activate(c: Collection, id: string): Promise<Subscription> {
  if (c.kind === 'inbox') return call(client.POST('/v0/me/inbox-subscriptions/{id}/activate', { params: { path: { id } } }));
  return call(client.POST('/v0/spaces/{slug}/webhook-subscriptions/{id}/activate', { params: { path: { slug: c.slug, id } } }));
}

async function setStatus(c: Collection, id: string, status: 'paused' | 'active'): Promise<Subscription> {
  if (c.kind === 'inbox') return call(client.PATCH('/v0/me/inbox-subscriptions/{id}', { params: { path: { id } }, body: { status } }));
  return call(client.PATCH('/v0/spaces/{slug}/webhook-subscriptions/{id}', { params: { path: { slug: c.slug, id } }, body: { status } }));
}

async function remove(c: Collection, id: string): Promise<void> {
  if (c.kind === 'inbox') await call(client.DELETE('/v0/me/inbox-subscriptions/{id}', { params: { path: { id } } }));
  else await call(client.DELETE('/v0/spaces/{slug}/webhook-subscriptions/{id}', { params: { path: { slug: c.slug, id } } }));
}

/** Creates a subscription, and activates it at once when asked (which needs a verified endpoint). */
export async function createSubscription(
  c: Collection,
  input: { endpoint_id: string; debounce_ms: number; filter?: Filter },
  activateNow: boolean,
): Promise<{ created: Subscription; activationError?: string }> {
  const created =
    c.kind === 'inbox'
      ? await call(client.POST('/v0/me/inbox-subscriptions', { body: { endpoint_id: input.endpoint_id, debounce_ms: input.debounce_ms } }))
      : await call(client.POST('/v0/spaces/{slug}/webhook-subscriptions', { params: { path: { slug: c.slug } }, body: input }));
  if (!activateNow) return { created };
  try {
    return { created: await activate(c, created.id) };
  } catch (err) {
    return { created, activationError: errorText(err) };
  }
}

/** A filter in words: which events wake the subscription. */
export function describeFilter(filter: Filter | null | undefined): string {
  if (!filter) return 'Every event of the Space you may read';
  return filter.any
    .map((clause) => {
      const types = clause.event_types?.map((t) => ('prefix' in t ? `types starting with ${t.prefix}` : `type ${t.exact}`)).join(' or ');
      const subject = clause.subject ? ('channel' in clause.subject ? `in channel ${clause.subject.channel}` : `of task #${clause.subject.task}`) : '';
      return [types ? `events of ${types}` : 'all events', subject].filter(Boolean).join(' ');
    })
    .join('; or ');
}

export function SubscriptionList({ collection, subscriptions, endpoints }: { collection: Collection; subscriptions: Subscription[]; endpoints: Endpoint[] }) {
  const [deleted, setDeleted] = useState('');
  const status = useRef<HTMLParagraphElement>(null);
  // A deleted subscription's card, and the button that had focus, are gone: focus goes on to the announcement.
  useEffect(() => {
    if (deleted) status.current?.focus();
  }, [deleted]);
  return (
    <>
      <p ref={status} tabIndex={-1} role="status" className={deleted ? 'notice' : 'visually-hidden'}>
        {deleted ? `Deleted ${deleted}.` : ''}
      </p>
      {subscriptions.length === 0 ? (
        <p className="muted">No subscriptions yet.</p>
      ) : (
        <ul className="plain-list">
          {subscriptions.map((s) => (
            <li key={s.id}>
              <SubscriptionCard collection={collection} subscription={s} endpoint={endpoints.find((e) => e.id === s.endpoint_id)} onDeleted={setDeleted} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const STATUS_HELP: Record<Subscription['status'], string> = {
  inactive: 'sends nothing until activated',
  active: 'sends wakes',
  paused: 'sends nothing; resuming sends one catch-up wake',
};

function SubscriptionCard({
  collection,
  subscription: s,
  endpoint,
  onDeleted,
}: {
  collection: Collection;
  subscription: Subscription;
  endpoint: Endpoint | undefined;
  onDeleted: (id: string) => void;
}) {
  const queries = useQueryClient();
  const [done, setDone] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const endpointActive = endpoint?.status === 'active';
  const headingId = `subscription-${s.id}`;

  const change = useMutation({
    mutationFn: async ({ what, said }: { what: () => Promise<Subscription>; said: (s: Subscription) => string }) => said(await what()),
    onSuccess: setDone,
    onSettled: () => queries.invalidateQueries({ queryKey: collectionKey(collection) }),
  });
  const run = (what: () => Promise<Subscription>, said: (s: Subscription) => string) => {
    setDone('');
    change.mutate({ what, said });
  };

  return (
    <article className="card subscription" aria-labelledby={headingId}>
      <h3 id={headingId}>
        <span className="mono">{s.id}</span> <span className={`badge subscription-${s.status}`}>{s.status}</span>
      </h3>
      <dl className="facts">
        <dt>Events</dt>
        <dd>{collection.kind === 'inbox' ? 'Your inbox: mentions of you and direct messages to you' : describeFilter(s.filter)}</dd>
        <dt>Endpoint</dt>
        <dd className="url">
          {endpoint ? (
            <>
              {endpoint.url} <span className="muted">({endpoint.status})</span>
            </>
          ) : (
            <span className="mono">{s.endpoint_id}</span>
          )}
        </dd>
        <dt>Status</dt>
        <dd>
          {s.status}: {STATUS_HELP[s.status]}
          {s.activation_cursor !== null ? ` (events after cursor ${s.activation_cursor})` : ''}
        </dd>
        <dt>Debounce</dt>
        <dd>{s.debounce_ms} ms</dd>
        <dt>Version</dt>
        <dd>
          {s.version}, changed <Time iso={s.updated_ts} />
        </dd>
      </dl>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorMessage>{change.isError ? errorText(change.error) : ''}</ErrorMessage>
      <div className="actions">
        {s.status === 'inactive' && endpointActive ? (
          <button type="button" className="small" onClick={() => run(() => activate(collection, s.id), (a) => `Activated: events after cursor ${a.activation_cursor} wake the endpoint.`)}>
            Activate
          </button>
        ) : null}
        {s.status === 'active' ? (
          <button type="button" className="small secondary" onClick={() => run(() => setStatus(collection, s.id, 'paused'), () => 'Paused: no wakes until you resume.')}>
            Pause
          </button>
        ) : null}
        {s.status === 'paused' ? (
          <button type="button" className="small" onClick={() => run(() => setStatus(collection, s.id, 'active'), () => 'Resumed: one catch-up wake covers what happened meanwhile.')}>
            Resume
          </button>
        ) : null}
        <button ref={deleteButton} type="button" className="small danger secondary" onClick={() => setConfirmDelete(true)}>
          Delete
        </button>
      </div>
      {s.status === 'inactive' && !endpointActive ? <p className="hint">Verify its endpoint first: only a verified endpoint can be activated.</p> : null}
      <details className="history-toggle" onToggle={(e) => setShowHistory(e.currentTarget.open)}>
        <summary>Delivery history</summary>
        {showHistory ? <DeliveryHistory subscriptionId={s.id} endpointActive={endpointActive} /> : null}
      </details>
      {confirmDelete ? (
        <ConfirmDialog
          title={`Delete subscription ${s.id}?`}
          confirmLabel="Delete"
          danger
          onCancel={() => {
            setConfirmDelete(false);
            deleteButton.current?.focus();
          }}
          onConfirm={async () => {
            await remove(collection, s.id);
            setConfirmDelete(false);
            onDeleted(s.id);
            await queries.invalidateQueries({ queryKey: collectionKey(collection) });
          }}
        >
          <p>Wakes not yet sent are cancelled. Its endpoint stays registered.</p>
        </ConfirmDialog>
      ) : null}
    </article>
  );
}
