import { useMutation } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { operations } from '../../../src/client/openapi';
import { attempt, client } from '../api/client';
import { CredentialList } from '../app/credential-list';
import { Time } from '../app/ui';

type ApiCredential = operations['list_credentials']['responses'][200]['content']['application/json']['credentials'][number];
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { navigate, signInPath } from '../app/router';
import { useSession } from '../api/session';
import { OAuthGrants } from '../oauth/grants';

// The keys client activations minted for the signed-in human (protocol: API credentials:
// `GET /v0/credentials`, `POST /v0/credentials/{id}/revoke`, session only).

type Listing = { kind: 'loading' } | { kind: 'failed'; detail: string } | { kind: 'loaded'; credentials: ApiCredential[] };

export function CredentialsPage() {
  useTitle('API credentials');
  const session = useSession();
  const [listing, setListing] = useState<Listing>({ kind: 'loading' });
  const [confirming, setConfirming] = useState<ApiCredential | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const statusRef = useRef<HTMLParagraphElement>(null);
  /** Where focus goes back to when the confirmation closes: the Revoke button that opened it. */
  const returnFocus = useRef<HTMLElement | null>(null);
  const { lost } = session;
  const signedIn = session.state.status === 'signed-in';
  const signedOut = session.state.status === 'signed-out';

  useEffect(() => {
    if (signedOut) navigate(signInPath('/credentials'), { replace: true });
  }, [signedOut]);

  const load = useCallback(async () => {
    const res = await attempt(client.GET('/v0/credentials'));
    if (res.ok) setListing({ kind: 'loaded', credentials: res.body.credentials });
    else if (res.status === 401) lost();
    else setListing({ kind: 'failed', detail: res.detail });
  }, [lost]);

  useEffect(() => {
    if (signedIn) void load();
  }, [signedIn, load]);

  const revoked = (credential: ApiCredential) => {
    setListing((l) =>
      l.kind === 'loaded' ? { kind: 'loaded', credentials: l.credentials.map((c) => (c.id === credential.id ? credential : c)) } : l,
    );
    setConfirming(null);
    setAnnouncement(`Revoked the key of “${credential.client_name}” (${credential.key_prefix}…). It no longer works.`);
  };

  useEffect(() => {
    if (confirming !== null || !returnFocus.current) return;
    // After a revoke the button is gone: continue from the announcement instead.
    const target = returnFocus.current.isConnected ? returnFocus.current : statusRef.current;
    returnFocus.current = null;
    target?.focus();
  }, [confirming]);

  if (!signedIn) return <Loading what="your account" />;

  return (
    <section>
      <PageHeading>API credentials</PageHeading>
      <p>
        Keys that command-line clients and other programs received after you approved them (for example with{' '}
        <code>atrium login</code>). Each acts as you. Revoke a key you no longer use, or do not recognise: it stops
        working at once.
      </p>
      <p ref={statusRef} tabIndex={-1} role="status" className={announcement ? 'notice' : 'visually-hidden'}>
        {announcement}
      </p>
      {listing.kind === 'loading' ? <Loading what="your credentials" /> : null}
      {listing.kind === 'failed' ? (
        <>
          <ErrorMessage>Could not load your credentials: {listing.detail}</ErrorMessage>
          <button type="button" onClick={() => void load()}>
            Try again
          </button>
        </>
      ) : null}
      {listing.kind === 'loaded' && listing.credentials.length === 0 ? (
        <p>You have no API credentials yet. They appear here when you approve a client.</p>
      ) : null}
      {listing.kind === 'loaded' && listing.credentials.length > 0 ? (
        <CredentialList
          credentials={listing.credentials}
          caption="Your API credentials, newest first"
          name={{ label: 'Client', cell: (c) => c.client_name }}
          columns={[
            { label: 'Key', cell: (c) => <span className="mono key-prefix">{c.key_prefix}…</span> },
            { label: 'Created', cell: (c) => <Time iso={c.created_ts} /> },
          ]}
          revokeLabel={(c) => `Revoke “${c.client_name}” (${c.key_prefix}…)`}
          onRevoke={(c, button) => {
            returnFocus.current = button;
            setAnnouncement('');
            setConfirming(c);
          }}
        />
      ) : null}
      {confirming ? (
        <RevokeDialog
          credential={confirming}
          onCancel={() => setConfirming(null)}
          onRevoked={revoked}
          onSessionLost={lost}
        />
      ) : null}
      <OAuthGrants />
    </section>
  );
}

/**
 * The confirmation, as a native modal <dialog>: the browser keeps focus inside
 * it and Escape cancels. "Cancel" gets the initial focus, so a stray Enter
 * does not revoke.
 */
function RevokeDialog({
  credential,
  onCancel,
  onRevoked,
  onSessionLost,
}: {
  credential: ApiCredential;
  onCancel: () => void;
  onRevoked: (c: ApiCredential) => void;
  onSessionLost: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState('');
  const revoking = useMutation({
    mutationFn: () => attempt(client.POST('/v0/credentials/{id}/revoke', { params: { path: { id: credential.id } } })),
    onSuccess: (res) => {
      if (res.ok) onRevoked(res.body);
      else if (res.status === 401) onSessionLost();
      else setError(`Could not revoke the key: ${res.detail}`);
    },
  });
  const busy = revoking.isPending;

  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);

  const revoke = () => {
    if (busy) return;
    setError('');
    revoking.mutate();
  };

  return (
    <dialog ref={dialog} aria-labelledby="revoke-title" aria-describedby="revoke-description" onClose={onCancel}>
      <h2 id="revoke-title">Revoke this key?</h2>
      <p id="revoke-description">
        The key of “{credential.client_name}” (<span className="mono">{credential.key_prefix}…</span>) stops working at
        once. A client using it will have to be approved again.
      </p>
      <ErrorMessage>{error}</ErrorMessage>
      <div className="actions">
        <button type="button" className="danger" onClick={revoke}>
          {busy ? 'Revoking…' : 'Revoke key'}
        </button>
        <button type="button" className="secondary" autoFocus onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
