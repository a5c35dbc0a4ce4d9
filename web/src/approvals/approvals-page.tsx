import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { call, client, errorText, type Schemas } from '../api/client';
import type { FormWords } from '../app/form-errors';
import { ErrorMessage, PageHeading, useTitle } from '../app/page';
import { spacePath, useSpace } from '../spaces/space';
import { Link, signInPath } from '../app/router';
import { useStanding } from '../api/standing';
import { Handle, Loaded, Notice, Time } from '../app/ui';
import '../webhooks/webhooks.css';
import { rootKeys } from '../api/keys';

const approvalsKeys = {
  list: (slug: string) => [...rootKeys.space(slug), 'credential-approvals'] as const,
  connections: (slug: string) => [...rootKeys.space(slug), 'external-connections'] as const,
};

// Credential approvals (docs/gateway.md, "Approvals"): an Owner/Host approves
// one exact external request for one member, through one of the Space's
// credential connections. Owners/Hosts list them (`GET …/credential-approvals`)
// with the purpose, exact URL and header names as approved; header values and
// the body are never shown (the body only by its SHA-256), and the reason
// stays on the host.

type Approval = Schemas['CredentialApproval'];
type Connection = Schemas['ExternalConnection'];
type Method = Approval['method'];
const METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The Space's approvals, newest first (kept fresh by the Space feed, which announces new ones and their use). */
function useApprovals(slug: string, enabled: boolean) {
  return useQuery({
    queryKey: approvalsKeys.list(slug),
    enabled,
    queryFn: async () =>
      (await call(client.GET('/v0/spaces/{space}/credential-approvals', { params: { path: { space: slug } } }))).approvals,
  });
}

function useConnections(slug: string, enabled: boolean) {
  return useQuery({
    queryKey: approvalsKeys.connections(slug),
    enabled,
    queryFn: async () => (await call(client.GET('/v0/spaces/{space}/external-connections', { params: { path: { space: slug } } }))).connections,
  });
}

export function ApprovalsPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  const standing = useStanding(slug);
  useTitle(space.data ? `Approvals · ${space.data.name}` : 'Approvals');
  const allowed = standing.ownerOrHost;
  // Listing connections needs admission, which an Owner/Host role does not stand in for.
  const admitted = standing.membership === 'admitted';
  const approvals = useApprovals(slug, allowed);
  const connections = useConnections(slug, allowed && admitted);
  const queries = useQueryClient();

  if (standing.me === null) {
    return (
      <section>
        <PageHeading>Approvals</PageHeading>
        <p>
          <Link to={signInPath(spacePath(slug, '/approvals'))}>Sign in</Link> as an Owner or Host of this Space.
        </p>
      </section>
    );
  }
  if (!allowed) {
    return (
      <section>
        <PageHeading>Approvals</PageHeading>
        <p>Only Owners and Hosts of this Space approve external requests.</p>
      </section>
    );
  }

  return (
    <section className="webhooks-page approvals-page">
      <PageHeading>Approvals</PageHeading>
      <p className="lead">
        An approval lets one member, usually an agent, make one exact external request (this method, URL, headers and body) once,
        through one of this Space&rsquo;s credential connections, before it expires, without the credential ever reaching them.
      </p>

      <section aria-labelledby="approvals-heading">
        <h2 id="approvals-heading">Approvals in this Space</h2>
        <Loaded query={approvals} what="the approvals">
          {(list) => <ApprovalTable approvals={list} />}
        </Loaded>
      </section>
      <section aria-labelledby="connections-heading">
        <h2 id="connections-heading">Connections</h2>
        {admitted ? (
          <Loaded query={connections} what="the connections">
            {(list) => <ConnectionTable connections={list} />}
          </Loaded>
        ) : (
          <p className="muted">
            Listing this Space&rsquo;s connections needs admission to it: join the Space to see them. You can still approve a request by
            connection id.
          </p>
        )}
      </section>

      <section aria-labelledby="new-approval-heading">
        <h2 id="new-approval-heading">Approve a request</h2>
        <ApprovalForm slug={slug} connections={connections.data ?? []} onMade={() => void queries.invalidateQueries({ queryKey: approvalsKeys.list(slug) })} />
      </section>

    </section>
  );
}

function ConnectionTable({ connections }: { connections: Connection[] }) {
  if (connections.length === 0) {
    return <p className="muted">No connection of this Space admits you. A connection only for agents is not listed here: approve by its id.</p>;
  }
  return (
    <>
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">Credential connections of this Space</caption>
          <thead>
            <tr>
              <th scope="col">Connection</th>
              <th scope="col">Needs approval for</th>
              <th scope="col">Needs a claimed task</th>
              <th scope="col">Longest ticket</th>
            </tr>
          </thead>
          <tbody>
            {connections.map((c) => (
              <tr key={c.id}>
                <th scope="row" data-label="Connection">
                  <span className="mono">{c.id}</span>
                </th>
                <td data-label="Needs approval for">{c.approval_required_methods.length ? c.approval_required_methods.join(', ') : 'no method'}</td>
                <td data-label="Needs a claimed task">{c.require_task ? 'yes' : 'no'}</td>
                <td data-label="Longest ticket">{c.max_ttl_seconds} s</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="hint">Listed: the connections that admit you. One only for agents, or for named members, is not listed; approve by its id.</p>
    </>
  );
}

function ApprovalTable({ approvals }: { approvals: Approval[] }) {
  if (approvals.length === 0) return <p className="muted">No approvals yet.</p>;
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">Credential approvals, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Connection</th>
            <th scope="col">For</th>
            <th scope="col">Purpose</th>
            <th scope="col">Expires</th>
            <th scope="col">Approved by</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {approvals.map((a) => (
            <tr key={a.id}>
              <th scope="row" className="url" data-label="Request">
                {a.method} {a.url}
                {a.header_names.length > 0 ? (
                  <>
                    <br />
                    <span className="muted">headers: {a.header_names.join(', ')}</span>
                  </>
                ) : null}
                <br />
                <span className="mono muted endpoint-id">{a.id}</span>
              </th>
              <td data-label="Connection">
                <span className="mono">{a.connection_id}</span>
              </td>
              <td data-label="For">
                <Handle handle={a.member_handle} />
                {a.task_id !== null ? <>, task #{a.task_id}</> : null}
                <br />
                <span className="muted">run id {a.run_id}</span>
              </td>
              <td data-label="Purpose">{a.purpose}</td>
              <td data-label="Expires">
                <Time iso={a.expires_ts} />
              </td>
              <td data-label="Approved by">{a.created_by ? <Handle handle={a.created_by} /> : 'the steward key'}</td>
              <td data-label="Status">
                <span className={`badge approval-${a.status}`}>{a.status === 'consumed' ? 'used' : a.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const LIFETIMES = [
  { seconds: 900, label: '15 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 4 * 3600, label: '4 hours' },
  { seconds: 86400, label: '24 hours' },
];

/** "Name: value" lines into a header record; a line without a colon is refused here, before sending. */
function parseHeaders(text: string): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf(':');
    if (at <= 0) return `Headers: "${line.trim()}" is not "Name: value".`;
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

function newRunId(): string {
  return `run-${crypto.randomUUID().slice(0, 8)}`;
}

/** The approval form's labels for the fields the server may refuse. */
const APPROVAL_WORDS: FormWords = {
  fields: {
    connection_id: 'Connection',
    member_handle: 'Member',
    task_id: 'Task',
    run_id: 'Run id',
    purpose: 'Purpose',
    expires_in_seconds: 'Usable for',
    reason: 'Why you approve it',
    'request.method': 'Method',
    'request.url': 'Exact URL',
    'request.headers': 'Headers',
    'request.body': 'Body',
  },
};

function ApprovalForm({ slug, connections, onMade }: { slug: string; connections: Connection[]; onMade: (a: Approval) => void }) {
  const queries = useQueryClient();
  const [form, setForm] = useState({
    connection: '',
    member: '',
    task: '',
    run: newRunId(),
    purpose: '',
    method: 'POST' as Method,
    url: '',
    headers: '',
    body: '',
    lifetime: '3600',
    reason: '',
  });
  const [problem, setProblem] = useState('');
  const [made, setMade] = useState<Approval | null>(null);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: e.target.value }));

  // On a refusal, what was typed stays, to be corrected.
  const making = useMutation({
    mutationFn: (headers: Record<string, string>) =>
      call(
        client.POST('/v0/spaces/{space}/credential-approvals', {
          params: { path: { space: slug } },
          body: {
            connection_id: form.connection.trim(),
            member_handle: form.member.trim().replace(/^@/, ''),
            ...(form.task.trim() ? { task_id: Number(form.task.trim()) } : {}),
            run_id: form.run.trim(),
            purpose: form.purpose,
            expires_in_seconds: Number(form.lifetime),
            reason: form.reason,
            request: {
              method: form.method,
              url: form.url.trim(),
              ...(Object.keys(headers).length ? { headers } : {}),
              ...(form.body !== '' ? { body: form.body } : {}),
            },
          },
        }),
      ),
    onSuccess: async (approval) => {
      setMade(approval);
      onMade(approval);
      // A run id gets one ticket per member: the next approval needs a fresh one.
      setForm((f) => ({ ...f, run: newRunId(), purpose: '', url: '', headers: '', body: '', reason: '', task: '' }));
      await queries.invalidateQueries({ queryKey: approvalsKeys.list(slug) });
    },
  });
  const busy = making.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    making.reset();
    setProblem('');
    setMade(null);
    const headers = parseHeaders(form.headers);
    if (typeof headers === 'string') return setProblem(headers);
    if (form.task !== '' && !/^[1-9][0-9]*$/.test(form.task.trim())) return setProblem('Task: a task number such as 42, or empty.');
    making.mutate(headers);
  };

  return (
    <form className="card approval-form" onSubmit={submit} aria-labelledby="new-approval-heading">
      <div className="form-grid">
        <div className="field">
          <label htmlFor="approval-connection">Connection</label>
          <input id="approval-connection" type="text" list="approval-connections" required value={form.connection} onChange={set('connection')} />
          <datalist id="approval-connections">
            {connections.map((c) => (
              <option key={c.id} value={c.id} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="approval-member">Member</label>
          <input id="approval-member" type="text" required autoComplete="off" value={form.member} aria-describedby="approval-member-hint" onChange={set('member')} />
          <p id="approval-member-hint" className="hint">
            The handle of the member who will make the request; the connection must admit them.
          </p>
        </div>
        <div className="field">
          <label htmlFor="approval-task">Task (optional)</label>
          <input id="approval-task" type="text" inputMode="numeric" value={form.task} onChange={set('task')} />
        </div>
        <div className="field">
          <label htmlFor="approval-run">Run id</label>
          <input id="approval-run" type="text" required value={form.run} aria-describedby="approval-run-hint" onChange={set('run')} />
          <p id="approval-run-hint" className="hint">
            The member must send this run id. Never put a secret in it.
          </p>
        </div>
      </div>
      <div className="field">
        <label htmlFor="approval-purpose">Purpose</label>
        <input id="approval-purpose" type="text" required maxLength={200} value={form.purpose} aria-describedby="approval-purpose-hint" onChange={set('purpose')} />
        <p id="approval-purpose-hint" className="hint">
          One line; the member must declare exactly this purpose. It is recorded in the gateway ledger.
        </p>
      </div>
      <div className="form-grid request-line">
        <div className="field">
          <label htmlFor="approval-method">Method</label>
          <select id="approval-method" value={form.method} onChange={set('method')}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="approval-url">Exact URL</label>
          <input id="approval-url" type="url" required value={form.url} onChange={set('url')} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="approval-headers">Headers (optional)</label>
        <textarea id="approval-headers" className="mono short" value={form.headers} aria-describedby="approval-headers-hint" onChange={set('headers')} />
        <p id="approval-headers-hint" className="hint">
          One &ldquo;Name: value&rdquo; a line. Values are bound by digest and never shown again.
        </p>
      </div>
      <div className="field">
        <label htmlFor="approval-body">Body (optional)</label>
        <textarea id="approval-body" className="mono short" value={form.body} onChange={set('body')} />
      </div>
      <div className="field">
        <label htmlFor="approval-lifetime">Usable for</label>
        <select id="approval-lifetime" value={form.lifetime} onChange={set('lifetime')}>
          {LIFETIMES.map((l) => (
            <option key={l.seconds} value={l.seconds}>
              {l.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="approval-reason">Why you approve it</label>
        <textarea id="approval-reason" className="short" required minLength={3} maxLength={1000} value={form.reason} aria-describedby="approval-reason-hint" onChange={set('reason')} />
        <p id="approval-reason-hint" className="hint">
          Kept on this host; never sent to the gateway.
        </p>
      </div>
      {made ? (
        <Notice>
          Approved {made.id}: <Handle handle={made.member_handle} /> may send {made.method} {made.url} once through {made.connection_id}, with run
          id <code>{made.run_id}</code> and purpose &ldquo;{made.purpose}&rdquo;, until <Time iso={made.expires_ts} />.
        </Notice>
      ) : null}
      <ErrorMessage>{problem || (making.isError ? errorText(making.error, APPROVAL_WORDS) : '')}</ErrorMessage>
      <button type="submit" aria-disabled={busy}>
        Approve
      </button>
    </form>
  );
}
