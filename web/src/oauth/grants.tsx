import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { operations } from '../../../src/client/openapi';
import { call, client } from '../api/client';
import { ConfirmDialog, Loaded, Notice, Time } from '../app/ui';

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
            <div className="table-scroll">
              <table>
                <caption className="visually-hidden">Programs you allowed, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Program</th>
                    <th scope="col">Acts as</th>
                    <th scope="col">Access</th>
                    <th scope="col">Spaces</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((g) => (
                    <tr key={g.id} className={g.revoked_ts ? 'revoked' : undefined}>
                      <th scope="row" className="client-cell" data-label="Program">
                        {g.client_name}
                        <span className="hint block mono">{clientHost(g.client_id)}</span>
                      </th>
                      <td data-label="Acts as">@{g.acting_member}</td>
                      <td data-label="Access">{g.scope === 'read' ? 'Read only' : 'Read and write'}</td>
                      <td data-label="Spaces">{g.spaces === null ? 'Every Space' : g.spaces.join(', ')}</td>
                      <td data-label="Last used">{g.last_used_ts ? <Time iso={g.last_used_ts} /> : 'Never'}</td>
                      <td data-label="Status">
                        {g.revoked_ts ? (
                          <>
                            Revoked <Time iso={g.revoked_ts} />
                          </>
                        ) : (
                          'Active'
                        )}
                      </td>
                      <td className="row-actions">
                        {g.revoked_ts ? null : (
                          <button
                            type="button"
                            className="danger secondary"
                            aria-label={`Revoke “${g.client_name}” acting as @${g.acting_member}`}
                            onClick={() => {
                              setAnnouncement('');
                              setConfirming(g);
                            }}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
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
