import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call, client, errorText } from '../api/client';
import { ErrorMessage } from '../app/page';
import { Loaded, Notice, Time } from '../app/ui';
import { useDeliveries, webhooksKeys, type Delivery } from './queries';

// A subscription's delivery history (GET /v0/webhook-subscriptions/{id}/deliveries):
// the newest 100 wakes, with every transport attempt and what the receiver
// answered. That is not a receipt that it processed anything. A dead delivery
// may be replayed: same id and body, attempts counting on.

export function DeliveryHistory({ subscriptionId, endpointActive }: { subscriptionId: string; endpointActive: boolean }) {
  const deliveries = useDeliveries(subscriptionId);
  const queries = useQueryClient();
  const [notice, setNotice] = useState('');
  const replaying = useMutation({
    mutationFn: (delivery: Delivery) => call(client.POST('/v0/webhook-deliveries/{id}/replay', { params: { path: { id: delivery.id } } })),
    onSuccess: (again) => setNotice(`Replaying ${again.id}: it is sent again now, with the same id and body.`),
    onSettled: () => queries.invalidateQueries({ queryKey: webhooksKeys.deliveries(subscriptionId) }),
  });

  const replay = (delivery: Delivery) => {
    setNotice('');
    replaying.mutate(delivery);
  };

  return (
    <div className="delivery-history">
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorMessage>{replaying.isError ? errorText(replaying.error) : ''}</ErrorMessage>
      <Loaded query={deliveries} what="the deliveries">
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No deliveries yet. A wake is sent once an event qualifies after activation.</p>
          ) : (
            <div className="table-scroll">
              <table>
                <caption className="visually-hidden">Deliveries of {subscriptionId}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">Events</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Next attempt</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id}>
                      <td data-label="Created">
                        <Time iso={d.created_ts} />
                        <br />
                        <span className="mono delivery-id">{d.id}</span>
                      </td>
                      <td data-label="Events">
                        after {d.event_range.after} through {d.event_range.through}
                      </td>
                      <td data-label="Status">
                        <span className={`badge delivery-${d.status}`}>{d.status}</span>
                      </td>
                      <td data-label="Attempts">
                        <Attempts delivery={d} />
                      </td>
                      <td data-label="Next attempt">{d.next_attempt_ts ? <Time iso={d.next_attempt_ts} /> : '—'}</td>
                      <td className="row-actions">
                        {d.status === 'dead' && !endpointActive ? <span className="hint">Verify the endpoint to replay.</span> : null}
                        {d.status === 'dead' && endpointActive ? (
                          <button type="button" className="small" onClick={() => replay(d)} aria-label={`Replay ${d.id}`}>
                            Replay
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </div>
  );
}

function answer(a: Delivery['attempts'][number]): string {
  if (a.response_status !== null) return a.error ? `${a.response_status}: ${a.error}` : String(a.response_status);
  return a.error ?? 'no answer';
}

function Attempts({ delivery }: { delivery: Delivery }) {
  const attempts = delivery.attempts;
  const last = attempts.at(-1);
  if (!last) return <>none yet</>;
  return (
    <details className="attempts">
      <summary>
        {attempts.length} {attempts.length === 1 ? 'attempt' : 'attempts'}, last: {answer(last)}
      </summary>
      <ol className="plain-list">
        {attempts.map((a) => (
          <li key={a.attempt}>
            #{a.attempt} <Time iso={a.started_ts} />, {a.duration_ms} ms: {answer(a)}
          </li>
        ))}
      </ol>
    </details>
  );
}
