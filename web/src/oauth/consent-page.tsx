import { useMutation } from '@tanstack/react-query';
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { operations } from '../../../src/client/openapi';
import { attempt, client } from '../api/client';
import { formatDateTime } from '../app/format';
import { ErrorMessage, Loading, Screen } from '../app/page';
import { navigate, signInPath, useLocation } from '../app/router';
import { useSession } from '../api/session';
import '../spaces/spaces.css';

// OAuth consent (docs/oauth.md). A client that was given only this host's URL
// sent the person here from the authorization endpoint, which already checked
// the client, its redirect URI and PKCE. The person decides who the client
// acts as (themselves, or one of their own active, confirmed agents), may
// narrow the grant to read and to chosen Spaces, and the browser goes back to
// the client with a code, or with access_denied.

type AuthorizationRequest = operations['get_oauth_authorization_request']['responses'][200]['content']['application/json'];
type Choice = AuthorizationRequest['acting_choices'][number];
type SpaceSummary = { slug: string; name: string };

type Loaded =
  | { kind: 'loading' }
  | { kind: 'missing' }
  | { kind: 'unknown' }
  | { kind: 'decided' }
  | { kind: 'expired' }
  | { kind: 'failed'; detail: string }
  | { kind: 'pending'; request: AuthorizationRequest; spaces: SpaceSummary[] }
  | { kind: 'leaving'; approved: boolean };

export function ConsentPage({ requestId }: { requestId: string | null }) {
  const session = useSession();
  const [loaded, setLoaded] = useState<Loaded>(requestId ? { kind: 'loading' } : { kind: 'missing' });
  const signedIn = session.state.status === 'signed-in';
  const signedOut = session.state.status === 'signed-out';
  // The client's name rides along, so the sign-in page can say what the person signs in for.
  const clientName = useLocation().search.get('client');
  const here = requestId ? `/oauth/consent?${new URLSearchParams({ request: requestId, ...(clientName ? { client: clientName } : {}) }).toString()}` : '/oauth/consent';

  // Consent needs a person: whoever is not signed in signs in first and comes back here.
  useEffect(() => {
    if (signedOut && requestId) navigate(signInPath(here), { replace: true });
  }, [signedOut, requestId, here]);

  const load = useCallback(async () => {
    if (!requestId) return;
    const res = await attempt(client.GET('/v0/oauth-authorization-requests/{id}', { params: { path: { id: requestId } } }));
    if (!res.ok) {
      if (res.status === 404 || res.status === 422) setLoaded({ kind: 'unknown' });
      else if (res.status === 409) setLoaded({ kind: 'decided' });
      else if (res.status === 410) setLoaded({ kind: 'expired' });
      else if (res.status !== 401) setLoaded({ kind: 'failed', detail: res.detail });
      return;
    }
    // The Spaces the person can see, to narrow the grant to; a failure here
    // leaves "every Space" as the only choice rather than blocking consent.
    const spaces = await attempt(client.GET('/v0/spaces'));
    setLoaded({
      kind: 'pending',
      request: res.body,
      spaces: spaces.ok ? spaces.body.spaces.map((s) => ({ slug: s.slug, name: s.name })) : [],
    });
  }, [requestId]);

  useEffect(() => {
    if (signedIn) void load();
  }, [signedIn, load]);

  if (loaded.kind === 'missing') {
    return (
      <Screen title="No request to decide">
        <p>This page decides a request from a program that wants to connect to Atrium, and the address names none. Start again from the program.</p>
      </Screen>
    );
  }
  if (!signedIn || loaded.kind === 'loading') return <Loading what="the request" />;
  if (loaded.kind === 'unknown') {
    return (
      <Screen title="Unknown request">
        <p>There is no request to connect a program with this address. Start again from the program you were connecting.</p>
      </Screen>
    );
  }
  if (loaded.kind === 'decided') {
    return (
      <Screen title="This request was already decided">
        <p>
          Someone already allowed or declined this request. A request is decided once. If you did not expect that, see your{' '}
          <a href="/credentials">API credentials</a>, where every program you allowed can be revoked.
        </p>
      </Screen>
    );
  }
  if (loaded.kind === 'expired') {
    return (
      <Screen title="This request has expired">
        <p>A request to connect stays open for 10 minutes, and this one has expired. Nothing was allowed. Start again from the program.</p>
      </Screen>
    );
  }
  if (loaded.kind === 'failed') {
    return (
      <Screen title="Could not load the request">
        <ErrorMessage>{loaded.detail}</ErrorMessage>
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </Screen>
    );
  }
  if (loaded.kind === 'leaving') {
    return (
      <Screen title={loaded.approved ? 'Allowed' : 'Declined'}>
        <p>Taking you back to the program…</p>
      </Screen>
    );
  }
  return (
    <ConsentForm
      request={loaded.request}
      spaces={loaded.spaces}
      me={session.state.status === 'signed-in' ? session.state.member.handle : ''}
      onDecided={(redirectTo, approved) => {
        setLoaded({ kind: 'leaving', approved });
        // The client's own redirect URI, checked by the server when the request
        // was made: the browser leaves this site for it.
        window.location.assign(redirectTo);
      }}
      onGone={(status) => setLoaded({ kind: status === 409 ? 'decided' : 'expired' })}
      onSessionLost={session.lost}
    />
  );
}

function ConsentForm({
  request,
  spaces,
  me,
  onDecided,
  onGone,
  onSessionLost,
}: {
  request: AuthorizationRequest;
  spaces: SpaceSummary[];
  me: string;
  onDecided: (redirectTo: string, approved: boolean) => void;
  onGone: (status: 409 | 410) => void;
  onSessionLost: () => void;
}) {
  const asksWrite = request.scope === 'read write';
  const [acting, setActing] = useState(request.acting_choices[0]?.handle ?? me);
  const [readOnly, setReadOnly] = useState(!asksWrite);
  const [narrow, setNarrow] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState('');
  const name = request.client_name ?? 'An unnamed program';
  const choice = request.acting_choices.find((c) => c.handle === acting);

  const deciding = useMutation({
    mutationFn: async (approve: boolean) => {
      const path = { params: { path: { id: request.id } } };
      return approve
        ? attempt(
            client.POST('/v0/oauth-authorization-requests/{id}/approve', {
              ...path,
              body: { acting_member: acting, scope: readOnly ? 'read' : 'read write', spaces: narrow ? chosen : null },
            }),
          )
        : attempt(client.POST('/v0/oauth-authorization-requests/{id}/deny', { ...path, body: {} }));
    },
    onSuccess: (res, approve) => {
      if (res.ok) onDecided(res.body.redirect_to, approve);
      else if (res.status === 401) onSessionLost();
      else if (res.status === 409 || res.status === 410) onGone(res.status);
      else setError(res.detail);
    },
  });
  const busy = deciding.isPending;

  const decide = (approve: boolean) => {
    if (busy) return;
    setError('');
    if (approve && narrow && chosen.length === 0) {
      setError('Choose at least one Space, or allow every Space.');
      return;
    }
    deciding.mutate(approve);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    decide(true);
  };

  return (
    <Screen title="Connect a program to Atrium?">
      <p>
        A program calling itself <q className="client-name">{name}</q> asks to use Atrium on your behalf. Its name is its own
        claim: check where it comes from.
      </p>
      <div className="code-card">
        <dl className="facts">
          <dt>Identified by</dt>
          <dd>{request.client_host ? <span className="mono">{request.client_host}</span> : 'a registration with this host (no address vouches for it)'}</dd>
          <dt>Returns to</dt>
          <dd>
            <span className="mono">{request.redirect_host}</span>
          </dd>
          <dt>Asks to</dt>
          <dd>{asksWrite ? 'read and write' : 'read only'}</dd>
          <dt>Works at</dt>
          <dd>
            <span className="mono">{new URL(request.resource).pathname}</span>
            {request.resource.endsWith('/mcp') ? ' (the MCP endpoint for agents)' : ' (the REST API)'}
          </dd>
          <dt>Decide before</dt>
          <dd>
            <time dateTime={request.expires_ts}>{formatDateTime(request.expires_ts)}</time>
          </dd>
        </dl>
      </div>
      <form onSubmit={submit}>
        <fieldset className="field">
          <legend>Act as</legend>
          {request.acting_choices.map((c) => (
            <ActingChoice key={c.handle} choice={c} me={me} checked={acting === c.handle} onChange={() => setActing(c.handle)} />
          ))}
        </fieldset>
        {choice?.type === 'agent' ? (
          <p className="notice">
            The program will have <strong>@{choice.handle}</strong>'s authority, never yours: it can do only what that agent
            may do.
          </p>
        ) : null}
        <fieldset className="field">
          <legend>Access</legend>
          {asksWrite ? (
            <Radio id="scope-write" name="scope" checked={!readOnly} onChange={() => setReadOnly(false)} hint="Post, edit and act, as asked.">
              Read and write
            </Radio>
          ) : null}
          <Radio id="scope-read" name="scope" checked={readOnly} onChange={() => setReadOnly(true)} hint="Every change is refused.">
            Read only
          </Radio>
        </fieldset>
        <fieldset className="field">
          <legend>Spaces</legend>
          <Radio id="spaces-all" name="spaces" checked={!narrow} onChange={() => setNarrow(false)}>
            Every Space {choice?.type === 'agent' ? 'the agent' : 'you'} can reach
          </Radio>
          {spaces.length > 0 ? (
            <Radio id="spaces-some" name="spaces" checked={narrow} onChange={() => setNarrow(true)} hint="Elsewhere it reads only what is public, and changes nothing.">
              Only the Spaces I choose
            </Radio>
          ) : null}
          {narrow ? (
            <ul className="plain-list space-choices" aria-label="Spaces the program may use">
              {spaces.map((s) => (
                <li key={s.slug} className="field checkbox">
                  <input
                    type="checkbox"
                    id={`space-${s.slug}`}
                    checked={chosen.includes(s.slug)}
                    onChange={(e) => setChosen((c) => (e.target.checked ? [...c, s.slug] : c.filter((x) => x !== s.slug)))}
                  />
                  <label htmlFor={`space-${s.slug}`}>
                    {s.name} <span className="muted mono">{s.slug}</span>
                  </label>
                </li>
              ))}
            </ul>
          ) : null}
        </fieldset>
        <ErrorMessage>{error}</ErrorMessage>
        <div className="actions">
          <button type="submit" aria-disabled={busy}>
            {busy ? 'Working…' : 'Allow'}
          </button>
          <button type="button" className="secondary" onClick={() => decide(false)}>
            Deny
          </button>
        </div>
        <p className="hint">
          You can revoke what you allow at any time on your <a href="/credentials">API credentials</a> page.
        </p>
      </form>
    </Screen>
  );
}

function ActingChoice({ choice, me, checked, onChange }: { choice: Choice; me: string; checked: boolean; onChange: () => void }) {
  const id = `acting-${choice.handle}`;
  return (
    <Radio id={id} name="acting_member" checked={checked} onChange={onChange}>
      {choice.handle === me ? (
        <>
          Yourself, <strong>@{choice.handle}</strong>
        </>
      ) : (
        <>
          Your agent <strong>@{choice.handle}</strong> <span className="muted">({choice.display_name})</span>
        </>
      )}
    </Radio>
  );
}

function Radio({ id, name, checked, onChange, hint, children }: { id: string; name: string; checked: boolean; onChange: () => void; hint?: string; children: ReactNode }) {
  return (
    <div className="field checkbox">
      <input type="radio" id={id} name={name} checked={checked} onChange={onChange} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>
        {children}
        {hint ? (
          <span className="hint block" id={`${id}-hint`}>
            {hint}
          </span>
        ) : null}
      </label>
    </div>
  );
}
