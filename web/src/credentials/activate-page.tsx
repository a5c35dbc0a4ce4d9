import { useMutation } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { attempt, client, type Schemas } from '../api/client';

type Activation = Schemas['ClientActivation'];
import { formatDateTime, requestedAt } from '../app/format';
import { ErrorMessage, Loading, Screen } from '../app/page';
import { Link, navigate, signInPath } from '../app/router';
import { useSession } from '../api/session';

// Client activation approval (protocol: Client activation).
// A command-line client shows a code and this page's address; the human signs
// in, checks that the code here is the one in their terminal, and approves. The
// browser session is never handed to the client: the server mints a separate,
// revocable API key that the client collects by polling.

type Loaded =
  | { kind: 'loading' }
  | { kind: 'unknown' }
  | { kind: 'failed'; detail: string }
  | { kind: 'activation'; activation: Activation; approvedHere: boolean };

export function ActivatePage({ code }: { code: string }) {
  const session = useSession();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [confirmed, setConfirmed] = useState(false);
  const [error, setError] = useState('');
  const checkbox = useRef<HTMLInputElement>(null);

  const load = useCallback(async () => {
    const res = await attempt(client.GET('/v0/client-activations/{code}', { params: { path: { code } } }));
    if (res.ok) setLoaded({ kind: 'activation', activation: res.body, approvedHere: false });
    else if (res.status === 404) setLoaded({ kind: 'unknown' });
    else setLoaded({ kind: 'failed', detail: res.detail });
  }, [code]);

  useEffect(() => {
    void load();
  }, [load]);

  // Only a pending request needs the human signed in; an unknown, expired or
  // used one is explained to anyone, without making them sign in first.
  const pending = loaded.kind === 'activation' && loaded.activation.status === 'pending' && !loaded.approvedHere;
  const signedOut = session.state.status === 'signed-out';
  useEffect(() => {
    if (pending && signedOut) navigate(signInPath(`/activate/${code}`), { replace: true });
  }, [pending, signedOut, code]);

  const approving = useMutation({
    mutationFn: (activationCode: string) => attempt(client.POST('/v0/client-activations/{code}/approve', { params: { path: { code: activationCode } } })),
    onSuccess: async (res) => {
      if (res.ok) {
        setLoaded({ kind: 'activation', activation: res.body, approvedHere: true });
      } else if (res.status === 401) {
        session.lost();
      } else if (res.status === 409 || res.status === 410) {
        // Used (409) or expired (410) while this page was open: show what it is now.
        await load();
      } else if (res.status === 404) {
        setLoaded({ kind: 'unknown' });
      } else {
        setError(res.detail);
      }
    },
  });
  const busy = approving.isPending;

  const approve = (event: FormEvent) => {
    event.preventDefault();
    if (busy || loaded.kind !== 'activation') return;
    setError('');
    if (!confirmed) {
      setError('First check that this code is the one shown in your terminal, and tick the box to say so.');
      checkbox.current?.focus();
      return;
    }
    approving.mutate(loaded.activation.code);
  };

  if (loaded.kind === 'loading' || (pending && session.state.status !== 'signed-in')) {
    return <Loading what="the request" />;
  }
  if (loaded.kind === 'failed') {
    return (
      <Screen key="failed" title="Could not load the request">
        <ErrorMessage>{loaded.detail}</ErrorMessage>
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </Screen>
    );
  }
  if (loaded.kind === 'unknown') {
    return (
      <Screen key="unknown" title="Unknown activation code">
        <p>
          There is no request with the code <span className="mono">{code}</span>. Check the address you opened against
          the one your command-line client printed, or run the command again (for example <code>atrium login</code>)
          to get a new one.
        </p>
      </Screen>
    );
  }

  const { activation } = loaded;
  const requested = requestedAt(activation.expires_ts);
  const me = session.state.status === 'signed-in' ? session.state.member.handle : null;

  if (loaded.approvedHere) {
    return (
      <Screen key="approved" title="Approved">
        <p>
          <ClientName name={activation.client_name} /> now has its own API key, acting as{' '}
          <strong>@{activation.member_handle}</strong>.
        </p>
        <p>Go back to your terminal: the client picks the key up by itself within a few seconds.</p>
        <p>
          You can revoke this key at any time on your <Link to="/credentials">API credentials</Link> page.
        </p>
      </Screen>
    );
  }
  if (activation.status === 'expired') {
    return (
      <Screen key="expired" title="This request has expired">
        <p>
          The request from <ClientName name={activation.client_name} /> with code{' '}
          <span className="mono">{activation.code}</span> was valid for 15 minutes and has expired. Nothing was
          approved.
        </p>
        <p>
          Run the command again (for example <code>atrium login</code>) to get a new code.
        </p>
      </Screen>
    );
  }
  if (activation.status === 'approved' || activation.status === 'consumed') {
    const byMe = me !== null && activation.member_handle === me;
    return (
      <Screen key="used" title="This request was already used">
        <p>
          The request from <ClientName name={activation.client_name} /> with code{' '}
          <span className="mono">{activation.code}</span> was already approved
          {activation.member_handle ? (
            <>
              {' '}
              for <strong>@{activation.member_handle}</strong>
            </>
          ) : null}
          . A request can be approved only once.
        </p>
        {byMe ? (
          <p>
            If that was not you, revoke the key on your <Link to="/credentials">API credentials</Link> page.
          </p>
        ) : (
          <p>To connect a client, run the command again to get a new code.</p>
        )}
      </Screen>
    );
  }

  return (
    <Screen key="pending" title="Approve a command-line client?">
      <p>
        A program calling itself <ClientName name={activation.client_name} /> asks for an API key that acts as you,{' '}
        <strong>@{me}</strong>.
      </p>
      <div className="code-card">
        <p className="code-label">Code</p>
        <p className="code-display">{activation.code}</p>
        <dl className="facts">
          <dt>Requested</dt>
          <dd>
            <time dateTime={requested}>{formatDateTime(requested)}</time>
          </dd>
          <dt>Expires</dt>
          <dd>
            <time dateTime={activation.expires_ts}>{formatDateTime(activation.expires_ts)}</time>
          </dd>
        </dl>
      </div>
      <form onSubmit={approve}>
        <p>
          Only approve a request you started yourself, just now. If the code in your terminal is different, someone
          else may be trying to get access: do not approve, just close this page.
        </p>
        <div className="field checkbox">
          <input
            ref={checkbox}
            id="codes-match"
            type="checkbox"
            checked={confirmed}
            onChange={(e) => setConfirmed(e.target.checked)}
          />
          <label htmlFor="codes-match">
            The code in my terminal is <span className="mono">{activation.code}</span>
          </label>
        </div>
        <ErrorMessage>{error}</ErrorMessage>
        <div className="actions">
          <button type="submit" aria-disabled={busy}>
            {busy ? 'Approving…' : 'Approve'}
          </button>
        </div>
      </form>
    </Screen>
  );
}


/** The name is whatever the client claimed: show it as a quotation, never as our own words. */
function ClientName({ name }: { name: string }) {
  return <q className="client-name">{name}</q>;
}
