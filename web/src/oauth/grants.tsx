import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { operations } from '../../../src/client/openapi';
import { call, client } from '../api/client';
import { CredentialList } from '../app/credential-list';
import { ConfirmDialog, Loaded, Notice } from '../app/ui';

const oauthKeys = { grants: ['oauth-grants'] as const };

// The programs a person let in through the consent page (docs/oauth.md:
// `GET /v0/oauth-grants`, `POST /v0/oauth-grants/{id}/revoke`, session only).
// Revoking stops the grant's tokens at once, on every node.

type Grant = operations['list_oauth_grants']['responses'][200]['content']['application/json']['grants'][number];

export function OAuthGrants() {
  const queries = useQueryClient();
  const grants = useQuery({ queryKey: oauthKeys.grants, queryFn: async () => (await call(client.GET('/v0/oauth-grants'))).grants });
  const [confirming, setConfirming] = useState<Grant | null>(null);
  const [announcement, setAnnouncement] = useState('');

  const revoke = async (grant: Grant) => {
    const revoked = await call(client.POST('/v0/oauth-grants/{id}/revoke', { params: { path: { id: grant.id } }, body: {} }));
    queries.setQueryData<Grant[]>(oauthKeys.grants, (list) => list?.map((g) => (g.id === revoked.id ? revoked : g)));
    setConfirming(null);
    setAnnouncement(`Revoked “${grant.client_name}” acting as @${grant.acting_member}. Its tokens no longer work.`);
  };

  return (
    <section aria-labelledby="oauth-grants">
      <h2 id="oauth-grants">Programs connected by URL</h2>
      <p>
        Programs you allowed on the consent page, such as an agent client given this host's address. Each acts as you or
        as the agent you chose, within what you allowed.
      </p>
      {announcement ? <Notice>{announcement}</Notice> : null}
      <Loaded query={grants} what="your connected programs">
        {(list) =>
          list.length === 0 ? (
            <p>No program is connected. They appear here when you allow one.</p>
          ) : (
            <CredentialList
              credentials={list}
              caption="Programs you allowed, newest first"
              name={{
                label: 'Program',
                cell: (g) => (
                  <>
                    {g.client_name}
                    <span className="hint block mono">{clientHost(g.client_id)}</span>
                  </>
                ),
              }}
              columns={[
                { label: 'Acts as', cell: (g) => `@${g.acting_member}` },
                { label: 'Access', cell: (g) => (g.scope === 'read' ? 'Read only' : 'Read and write') },
                { label: 'Spaces', cell: (g) => (g.spaces === null ? 'Every Space' : g.spaces.join(', ')) },
              ]}
              revokeLabel={(g) => `Revoke “${g.client_name}” acting as @${g.acting_member}`}
              onRevoke={(g) => {
                setAnnouncement('');
                setConfirming(g);
              }}
            />
          )
        }
      </Loaded>
      {confirming ? (
        <ConfirmDialog title="Revoke this program?" confirmLabel="Revoke" danger onConfirm={() => revoke(confirming)} onCancel={() => setConfirming(null)}>
          <p>
            “{confirming.client_name}” stops acting as @{confirming.acting_member} at once: its next call is refused. To use it
            again, connect it again and allow it on the consent page.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** A Client ID Metadata Document's host says who publishes the program; a registration has none. */
function clientHost(clientId: string): string {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host : 'registered here';
  } catch {
    return 'registered here';
  }
}
