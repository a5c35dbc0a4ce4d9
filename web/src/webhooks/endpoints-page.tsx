import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { call, client, errorText } from '../api/client';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { navigate, signInPath } from '../app/router';
import { useSession } from '../api/session';
import { ConfirmDialog, Loaded, Notice, Time } from '../app/ui';
import { useEndpoints, useInboxSubscriptions, useSigningKeys, webhooksKeys, type Endpoint } from './queries';
import { SubscriptionForm } from './subscription-form';
import { SubscriptionList } from './subscriptions';
import './webhooks.css';
import { rootKeys } from '../api/keys';

// The signed-in member's webhooks (docs/webhooks.md): their endpoints
// (receiver URLs, verified by a signed challenge), their inbox subscriptions,
// and the host's public signing keys receivers verify against. A Space's
// subscriptions are managed on that Space's Webhooks page.

export function WebhookEndpointsPage() {
  useTitle('Webhooks');
  const session = useSession();
  const signedOut = session.state.status === 'signed-out';
  useEffect(() => {
    if (signedOut) navigate(signInPath('/webhooks'), { replace: true });
  }, [signedOut]);
  const endpoints = useEndpoints();
  const inbox = useInboxSubscriptions();

  if (session.state.status !== 'signed-in') return <Loading what="your account" />;

  return (
    <section className="webhooks-page">
      <PageHeading>Webhooks</PageHeading>
      <p>
        A webhook wakes a program of yours when events may concern you. It never carries the events themselves: your receiver
        reads the feed it names with its own credential. Every request is signed with the host&rsquo;s keys (below), so there is no
        shared secret to keep.
      </p>

      <section aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Endpoints</h2>
        <Loaded query={endpoints} what="your endpoints">
          {(list) => <EndpointTable endpoints={list} />}
        </Loaded>
        <NewEndpoint />
      </section>

      <section aria-labelledby="inbox-subs-heading">
        <h2 id="inbox-subs-heading">Inbox subscriptions</h2>
        <p className="muted">Wake an endpoint when you are mentioned or sent a direct message, in any Space you can read.</p>
        <Loaded query={inbox} what="your inbox subscriptions">
          {(subs) => (
            <>
              <SubscriptionList collection={{ kind: 'inbox' }} subscriptions={subs} endpoints={endpoints.data ?? []} />
              {endpoints.data ? <SubscriptionForm collection={{ kind: 'inbox' }} endpoints={endpoints.data} /> : null}
            </>
          )}
        </Loaded>
      </section>

      <SigningKeys />
    </section>
  );
}

function EndpointTable({ endpoints }: { endpoints: Endpoint[] }) {
  const queries = useQueryClient();
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const verification = useMutation({
    mutationFn: (endpoint: Endpoint) => call(client.POST('/v0/webhook-endpoints/{id}/verify', { params: { path: { id: endpoint.id } } })),
    onSuccess: (_, endpoint) => setNotice(`${endpoint.url} answered the challenge: it is active.`),
    onError: (err, endpoint) => setError(`${endpoint.url} was not verified: ${errorText(err)}`),
    onSettled: () => void queries.invalidateQueries({ queryKey: webhooksKeys.endpoints }),
  });
  const verifying = verification.isPending ? (verification.variables?.id ?? null) : null;

  const verify = (endpoint: Endpoint) => {
    setNotice('');
    setError('');
    verification.mutate(endpoint);
  };

  if (endpoints.length === 0) return <p className="muted">You have no endpoints yet.</p>;
  return (
    <>
      <p ref={statusRef} tabIndex={-1} role="status" className={notice ? 'notice' : 'visually-hidden'}>
        {notice}
      </p>
      <ErrorMessage>{error}</ErrorMessage>
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">Your webhook endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Verified</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((e) => (
              <tr key={e.id}>
                <th scope="row" className="url" data-label="URL">
                  {e.url}
                  <br />
                  <span className="mono muted endpoint-id">{e.id}</span>
                </th>
                <td data-label="Status">
                  <span className={`badge endpoint-${e.status}`}>{e.status}</span>
                </td>
                <td data-label="Verified">{e.verified_ts ? <Time iso={e.verified_ts} /> : 'never'}</td>
                <td className="row-actions">
                  <div className="row-buttons">
                    <button
                      type="button"
                      className="small"
                      aria-disabled={verifying !== null}
                      onClick={() => (verifying ? undefined : verify(e))}
                      aria-label={`${verifyLabel(e, verifying)} ${e.url}`}
                    >
                      {verifyLabel(e, verifying)}
                    </button>
                    <button type="button" className="small danger secondary" onClick={() => setDeleting(e)} aria-label={`Delete ${e.url}`}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="hint">
        Verify sends a signed challenge; your receiver must answer 2xx with <code>{'{"challenge": "<the same value>"}'}</code>.
      </p>
      {deleting ? (
        <ConfirmDialog
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          danger
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            await call(client.DELETE('/v0/webhook-endpoints/{id}', { params: { path: { id: deleting.id } } }));
            setDeleting(null);
            setNotice(`Deleted ${deleting.url}, and its subscriptions with it.`);
            statusRef.current?.focus();
            await queries.invalidateQueries({ queryKey: webhooksKeys.endpoints });
            await queries.invalidateQueries({ queryKey: webhooksKeys.inboxSubscriptions });
            await queries.invalidateQueries({ queryKey: rootKeys.spaces });
          }}
        >
          <p>
            <span className="url">{deleting.url}</span> stops receiving wakes, and every subscription that sends to it is deleted too.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** The button's visible words, which its accessible name starts with. */
function verifyLabel(endpoint: Endpoint, verifying: string | null): string {
  if (verifying === endpoint.id) return 'Verifying…';
  return endpoint.status === 'active' ? 'Verify again' : 'Verify';
}

function NewEndpoint() {
  const queries = useQueryClient();
  const [url, setUrl] = useState('');
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const registering = useMutation({
    mutationFn: () => call(client.POST('/v0/webhook-endpoints', { body: { url: url.trim() } })),
    onSuccess: async (endpoint) => {
      setDone(`Registered ${endpoint.url}, unverified. Press Verify once your receiver answers challenges.`);
      setUrl('');
      await queries.invalidateQueries({ queryKey: webhooksKeys.endpoints });
    },
  });
  const busy = registering.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    registering.reset();
    setDone('');
    setProblem(url.trim() === '' ? 'Enter the URL of your receiver.' : '');
    if (url.trim() !== '') registering.mutate();
  };

  return (
    <form className="card endpoint-form" onSubmit={submit} aria-labelledby="new-endpoint-title">
      <h3 id="new-endpoint-title">Register an endpoint</h3>
      <div className="field">
        <label htmlFor="endpoint-url">Receiver URL</label>
        <input id="endpoint-url" type="url" inputMode="url" autoComplete="url" value={url} aria-describedby="endpoint-url-hint" onChange={(e) => setUrl(e.target.value)} />
        <p id="endpoint-url-hint" className="hint">
          An https address on the public internet, such as https://hooks.example.org/atrium.
        </p>
      </div>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorMessage>{problem || (registering.isError ? errorText(registering.error, { fields: { url: 'Receiver URL' } }) : '')}</ErrorMessage>
      <button type="submit" aria-disabled={busy}>
        Register
      </button>
    </form>
  );
}

function SigningKeys() {
  const keys = useSigningKeys();
  return (
    <section aria-labelledby="signing-keys-heading">
      <h2 id="signing-keys-heading">Signing keys</h2>
      <p className="muted">
        The public Ed25519 keys every request is signed with, also served as a JWK Set at{' '}
        <a href="/v0/webhook-signing-keys">/v0/webhook-signing-keys</a>. A request names its key in <code>Webhook-Key-Id</code>.
      </p>
      <Loaded query={keys} what="the signing keys">
        {(list) => (
          <ul className="plain-list">
            {list.map((k) => (
              <li key={k.kid} className="card signing-key">
                <dl className="facts">
                  <dt>Key id</dt>
                  <dd className="mono">{k.kid}</dd>
                  <dt>Public key (x)</dt>
                  <dd className="mono">{k.x}</dd>
                  <dt>Status</dt>
                  <dd>{k.status === 'active' ? 'active: signs new requests' : 'retiring: rotated out, still listed for older requests'}</dd>
                  <dt>Created</dt>
                  <dd>
                    <Time iso={k.created_ts} />
                  </dd>
                </dl>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}
