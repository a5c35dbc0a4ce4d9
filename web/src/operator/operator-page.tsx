import { useEffect, useMemo } from 'react';
import { useSession } from '../api/session';
import { isHostWideOwner, useMyRoles } from '../api/standing';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { navigate, signInPath } from '../app/router';
import { Loaded, RelativeTime, Time } from '../app/ui';
import { TimeChart, type Series } from './chart';
import { useOperatorStatus, type NodeSample, type OperatorStatus } from './queries';
import './operator.css';

// The host operator's page (docs/operations.md, "The operator's page"): for
// a host-wide Owner, what every node of the host is doing, from the samples
// each node writes every ten seconds. Live: it asks again as often.

export function OperatorPage() {
  useTitle('Operator');
  const session = useSession();
  const roles = useMyRoles();
  const signedOut = session.state.status === 'signed-out';
  useEffect(() => {
    if (signedOut) navigate(signInPath('/operator'), { replace: true });
  }, [signedOut]);
  const owner = isHostWideOwner(roles.data);
  const status = useOperatorStatus(owner);

  if (session.state.status !== 'signed-in' || roles.isPending) return <Loading what="your roles" />;
  if (!owner) {
    return (
      <section className="operator-page">
        <PageHeading>Operator</PageHeading>
        <ErrorMessage>This page is for the host’s Owners. Ask one if you need to see how the host is doing.</ErrorMessage>
      </section>
    );
  }
  return (
    <section className="operator-page">
      <PageHeading>Operator</PageHeading>
      <p className="muted">Every node samples itself every ten seconds; this page shows the last half hour and refreshes as often.</p>
      <Loaded query={status} what="the host’s status">
        {(data) => <Status status={data} />}
      </Loaded>
    </section>
  );
}

function Status({ status }: { status: OperatorStatus }) {
  const now = Date.parse(status.now);
  return (
    <>
      <section aria-labelledby="nodes-heading">
        <h2 id="nodes-heading">Nodes</h2>
        <div className="table-scroll">
        <table className="operator-nodes">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Health</th>
              <th scope="col">Role</th>
              <th scope="col">Last sample</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {status.nodes.map((n) => (
              <tr key={n.node}>
                <th scope="row" className="mono">
                  {n.node}
                </th>
                <td data-label="Health">{!n.current ? <span className="badge warn">stopped sampling</span> : n.ready ? <span className="badge ok">ready</span> : <span className="badge warn">not ready</span>}</td>
                <td data-label="Role">{n.leading ? 'leader' : 'follower'}</td>
                <td data-label="Last sample">
                  <RelativeTime iso={n.last_seen_ts} now={now} />
                </td>
                <td data-label="Since">
                  <Time iso={n.first_seen_ts} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
        {status.nodes.length === 0 ? <p>No node has sampled itself in the last half hour.</p> : null}
      </section>

      <Charts samples={status.samples} />

      <div className="operator-columns">
        <section aria-labelledby="tables-heading">
          <h2 id="tables-heading">Largest tables</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Table or index</th>
                <th scope="col" className="number">
                  Size
                </th>
              </tr>
            </thead>
            <tbody>
              {status.tables.map((t) => (
                <tr key={t.name}>
                  <th scope="row" className="mono">
                    {t.name}
                  </th>
                  <td className="number">{bytes(t.bytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>

        <section aria-labelledby="errors-heading">
          <h2 id="errors-heading">Errors in the last hour</h2>
          {Object.keys(status.errors).length === 0 ? (
            <p>No error answers.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Code</th>
                  <th scope="col" className="number">
                    Answers
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(status.errors)
                  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
                  .map(([code, n]) => (
                    <tr key={code}>
                      <th scope="row" className="mono">
                        {code}
                      </th>
                      <td className="number">{n}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          )}
        </section>

        <section aria-labelledby="janitor-heading">
          <h2 id="janitor-heading">Janitor</h2>
          {status.janitor ? (
            <>
              <p>
                Last run finished <RelativeTime iso={status.janitor.finished_ts} now={now} />, removing {removedSummary(status.janitor.removed)}.
              </p>
              {status.janitor.skipped.length > 0 ? <p className="muted">Left to another node: {status.janitor.skipped.join(', ')}.</p> : null}
            </>
          ) : (
            <p>It has not run since the leading node started (it runs every ten minutes).</p>
          )}
        </section>
      </div>
    </>
  );
}

/** The plots: one line per node, sharing one time axis. */
function Charts({ samples }: { samples: NodeSample[] }) {
  const charts = useMemo(() => {
    const times = [...new Set(samples.map((s) => Date.parse(s.ts) / 1000))].sort((a, b) => a - b);
    const nodes = [...new Set(samples.map((s) => s.node))];
    const series = (read: (s: NodeSample) => number | null): Series[] =>
      nodes.map((node) => {
        const at = new Map(samples.filter((s) => s.node === node).map((s) => [Date.parse(s.ts) / 1000, read(s)]));
        return { label: node, values: times.map((t) => at.get(t) ?? null) };
      });
    const newest = (read: (s: NodeSample) => number | null, unit: string) => {
      const last = nodes.map((node) => [...samples].reverse().find((s) => s.node === node)).filter((s): s is NodeSample => s !== undefined);
      return last.length === 0 ? 'no samples yet' : `now ${last.map((s) => `${round(read(s) ?? 0)} ${unit}`).join(', ')}`;
    };
    const pool = (s: NodeSample) => (s.db_pool ? s.db_pool.total - s.db_pool.idle : null);
    return { times, series, newest, pool };
  }, [samples]);
  const { times, series, newest, pool } = charts;
  const plotted = useMemo(
    () => [
      { title: 'Events appended', unit: 'per second', read: (s: NodeSample) => s.events_per_second },
      { title: 'API requests', unit: 'per second', read: (s: NodeSample) => s.requests_per_second },
      { title: 'Webhook queue', unit: 'pending', read: (s: NodeSample) => s.webhook_queue_depth },
      { title: 'Oldest owed wake', unit: 'seconds', read: (s: NodeSample) => s.oldest_owed_wake_seconds },
      { title: 'Long-poll waiters', unit: 'waiting', read: (s: NodeSample) => s.long_poll_waiters },
      { title: 'Database connections in use', unit: 'connections', read: pool },
    ],
    [pool],
  );
  return (
    <section aria-labelledby="charts-heading">
      <h2 id="charts-heading">The last half hour</h2>
      <div className="operator-charts">
        {plotted.map((p) => (
          <TimeChart key={p.title} title={p.title} unit={p.unit} times={times} series={series(p.read)} summary={p.read === pool && samples.every((s) => !s.db_pool) ? 'SQLite: one connection' : newest(p.read, p.unit)} />
        ))}
      </div>
    </section>
  );
}

function round(n: number): string {
  return n >= 10 ? n.toFixed(0) : n.toFixed(1).replace(/\.0$/, '');
}

function bytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function removedSummary(removed: Record<string, number>): string {
  const done = Object.entries(removed).filter(([, n]) => n > 0);
  return done.length === 0 ? 'nothing (nothing had expired)' : done.map(([table, n]) => `${n} from ${table}`).join(', ');
}
