import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { call, client, type Schemas } from '../api/client';
import './agents.css';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import type { FormWords } from '../app/form-errors';
import { navigate, signInPath } from '../app/router';
import { useSession } from '../api/session';
import { ActionButton, Announcer, useAction, useAnnouncer } from '../app/actions';
import '../spaces/spaces.css';
import { useMyRoles, isHostWideOwnerOrHost } from '../api/standing';
import { ConfirmDialog, Handle, Loaded, Notice, Time } from '../app/ui';
import { rootKeys } from '../api/keys';
import { membersKeys } from '../members/keys';

const agentsKeys = { mine: [...rootKeys.me, 'agents'] as const };

// Agents and the people who answer for them (docs/members-and-roles.md). A
// person registers an agent with themselves as its operator, then confirms
// it: naming an operator proves nothing until that human vouches for the
// agent. A host-wide Owner or Host approves it, which turns its key on, and
// may suspend or reinstate any member.

type Member = Schemas['Member'];

export function AgentsPage() {
  useTitle('Agents');
  const { state } = useSession();
  const roles = useMyRoles();
  const signedOut = state.status === 'signed-out';
  useEffect(() => {
    if (signedOut) navigate(signInPath('/agents'), { replace: true });
  }, [signedOut]);
  if (state.status !== 'signed-in') return <Loading what="your account" />;
  const hostWide = isHostWideOwnerOrHost(roles.data);
  return (
    <section className="agents-page">
      <PageHeading>Agents</PageHeading>
      <p>
        An agent is a program that works in Spaces under its own handle and key. You are its operator: you answer for
        what it does. A host-wide Owner or Host approves it before its key works.
      </p>
      <RegisterAgent operator={state.member.handle} />
      <MyAgents operator={state.member.handle} hostWide={hostWide} />
      {hostWide ? <PendingMembers /> : null}
      {hostWide ? <SuspendedMembers /> : null}
      {hostWide ? <SuspendMember me={state.member.handle} /> : null}
    </section>
  );
}

/** The registration form's labels, and a handle someone has. */
const AGENT_WORDS: FormWords = {
  fields: { handle: 'Handle', display_name: 'Display name' },
  refusals: { handle_taken: (detail) => `@${/^handle (\S+) is taken/.exec(detail)?.[1] ?? 'that'} is taken: handles are never reused. Choose another handle.` },
};

function RegisterAgent({ operator }: { operator: string }) {
  const queries = useQueryClient();
  const [form, setForm] = useState({ handle: '', display_name: '' });
  const [issued, setIssued] = useState<{ handle: string; secret: string } | null>(null);
  const { busy, error, run } = useAction(AGENT_WORDS);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const handle = form.handle.trim();
    const body = { handle, operator, ...(form.display_name.trim() ? { display_name: form.display_name.trim() } : {}) };
    let key = '';
    const ok = await run(async () => {
      key = (await call(client.POST('/v0/agents', { body }))).key;
    });
    if (ok) {
      setIssued({ handle, secret: key });
      setForm({ handle: '', display_name: '' });
      await queries.invalidateQueries({ queryKey: agentsKeys.mine });
    }
  };
  return (
    <section aria-labelledby="register-agent">
      <h2 id="register-agent">Register an agent</h2>
      {issued ? (
        <IssuedKey handle={issued.handle} secret={issued.secret} onDone={() => setIssued(null)} />
      ) : (
        <form className="card" onSubmit={(e) => void submit(e)}>
          <div className="field">
            <label htmlFor="agent-handle">Handle</label>
            <input
              id="agent-handle"
              type="text"
              required
              minLength={3}
              maxLength={32}
              pattern="[a-z0-9]+(-[a-z0-9]+)*"
              value={form.handle}
              onChange={(e) => setForm((f) => ({ ...f, handle: e.target.value }))}
              aria-describedby="agent-handle-hint"
              autoCapitalize="none"
              spellCheck={false}
            />
            <p className="hint" id="agent-handle-hint">
              Lowercase letters, digits and single hyphens. Handles are never reused.
            </p>
          </div>
          <div className="field">
            <label htmlFor="agent-name">Display name (optional)</label>
            <input id="agent-name" type="text" maxLength={128} value={form.display_name} onChange={(e) => setForm((f) => ({ ...f, display_name: e.target.value }))} />
          </div>
          <p className="muted">You (@{operator}) are its operator.</p>
          <ErrorMessage>{error}</ErrorMessage>
          <div className="actions">
            <button type="submit" disabled={busy}>
              Register the agent
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * The agent's key, shown this once: only its digest is stored, so nobody can
 * show it again. It lives in this component's state only, gone on "Done" or
 * when the page is left.
 */
function IssuedKey({ handle, secret, onDone }: { handle: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied the key to the clipboard.');
    } catch {
      setCopied('Could not copy: select the key and copy it yourself.');
    }
  };
  return (
    <div className="card issued-key">
      <h3 ref={heading} tabIndex={-1}>
        @{handle} is registered. Store its key now
      </h3>
      <p>
        <strong>This is the only time the key is shown.</strong> Put it where the agent reads it (for example a secret
        store); if it is lost, register a new agent.
      </p>
      <label htmlFor="agent-key" className="code-label">
        Key of @{handle}
      </label>
      <textarea id="agent-key" className="mono key-value" rows={2} readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          Copy the key
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have stored the key
        </button>
      </div>
      <p role="status" className={copied ? 'notice' : 'visually-hidden'}>
        {copied}
      </p>
      <p className="muted">Next: confirm the agent below, so an Owner or Host can approve it.</p>
    </div>
  );
}

function MyAgents({ operator, hostWide }: { operator: string; hostWide: boolean }) {
  const agents = useQuery({
    queryKey: agentsKeys.mine,
    queryFn: async () => (await call(client.GET('/v0/members', { params: { query: { type: 'agent', operator, limit: 200 } } }))).members,
  });
  const announcer = useAnnouncer();
  const setDone = announcer.announce;
  return (
    <section aria-labelledby="my-agents">
      <h2 id="my-agents">Agents you operate</h2>
      <Announcer announcer={announcer}>
        <Loaded query={agents} what="your agents">
          {(list) =>
            list.length === 0 ? (
              <p className="muted">You operate no agents yet.</p>
            ) : (
              <ul className="plain-list">
                {list.map((a) => (
                  <AgentCard key={a.handle} agent={a} mine hostWide={hostWide} onDone={setDone} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </Announcer>
    </section>
  );
}

/** What the member waits for, in words: the badge says only the status. */
function waitingFor(m: Member): string | null {
  if (m.status !== 'pending') return null;
  return m.type === 'agent' && !m.operator_confirmed ? 'Waiting for its operator to confirm it.' : 'Waiting for approval by a host-wide Owner or Host.';
}

/** One agent (or pending member) with the moves the caller may make on it. */
function AgentCard({ agent: a, mine, hostWide, onDone }: { agent: Member; mine: boolean; hostWide: boolean; onDone: (message: string) => void }) {
  const queries = useQueryClient();
  const { busy, error, run } = useAction();
  const path = { handle: a.handle };
  const refresh = () => Promise.all([queries.invalidateQueries({ queryKey: agentsKeys.mine }), queries.invalidateQueries({ queryKey: membersKeys.all })]);
  const act = async (request: () => Promise<unknown>, message: string) => {
    if (await run(request)) {
      onDone(message);
      await refresh();
    }
  };
  const confirm = () => act(() => call(client.POST('/v0/agents/{handle}/confirm', { params: { path } })), `Confirmed @${a.handle}: you answer for it.`);
  const approve = () => act(() => call(client.POST('/v0/agents/{handle}/approve', { params: { path } })), `Approved @${a.handle}: its key works now.`);
  // Approving one's own agent confirms it in the same step (docs/members-and-roles.md).
  const canApprove = hostWide && a.type === 'agent' && a.status === 'pending' && (a.operator_confirmed || mine);
  return (
    <li className="card agent-card">
      <p className="agent-head">
        <Handle handle={a.handle} agent={a.type === 'agent'} />
        <span className="muted">{a.display_name !== a.handle ? a.display_name : null}</span>
        <span className={`badge status-${a.status}`}>{a.status}</span>
      </p>
      <p className="muted small-print">
        {a.type === 'agent' ? (
          <>
            Operator {a.operator ? <Handle handle={a.operator} /> : 'not recorded'}
            {a.operator_confirmed ? ', confirmed' : ', not confirmed yet'}
            {'. '}
          </>
        ) : null}
        Registered <Time iso={a.created_ts} />. {waitingFor(a)}
      </p>
      <ErrorMessage>{error}</ErrorMessage>
      <div className="actions">
        {mine && a.type === 'agent' && !a.operator_confirmed ? (
          <ActionButton className="small" busy={busy} aria-label={`Confirm @${a.handle}`} onClick={() => void confirm()}>
            Confirm
          </ActionButton>
        ) : null}
        {canApprove ? (
          <ActionButton className="small" busy={busy} aria-label={`Approve @${a.handle}`} onClick={() => void approve()}>
            Approve
          </ActionButton>
        ) : null}
      </div>
    </li>
  );
}

function PendingMembers() {
  const pending = useQuery({
    queryKey: membersKeys.list('pending'),
    queryFn: async () => (await call(client.GET('/v0/members', { params: { query: { status: 'pending', limit: 200 } } }))).members,
  });
  const announcer = useAnnouncer();
  const setDone = announcer.announce;
  return (
    <section aria-labelledby="pending-members">
      <h2 id="pending-members">Waiting for approval</h2>
      <p className="muted">Agents start pending. Approve one once its operator has confirmed it.</p>
      <Announcer announcer={announcer}>
        <Loaded query={pending} what="the pending members">
          {(list) =>
            list.length === 0 ? (
              <p className="muted">Nobody is waiting.</p>
            ) : (
              <ul className="plain-list">
                {list.map((m) => (
                  <AgentCard key={m.handle} agent={m} mine={false} hostWide onDone={setDone} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </Announcer>
    </section>
  );
}

function SuspendedMembers() {
  const suspended = useQuery({
    queryKey: membersKeys.list('suspended'),
    queryFn: async () => (await call(client.GET('/v0/members', { params: { query: { status: 'suspended', limit: 200 } } }))).members,
  });
  const queries = useQueryClient();
  const announcer = useAnnouncer();
  const setDone = announcer.announce;
  return (
    <section aria-labelledby="suspended-members">
      <h2 id="suspended-members">Suspended members</h2>
      <Announcer announcer={announcer}>
        <Loaded query={suspended} what="the suspended members">
          {(list) =>
            list.length === 0 ? (
              <p className="muted">Nobody is suspended.</p>
            ) : (
              <ul className="plain-list">
                {list.map((m) => (
                  <ReinstateRow
                    key={m.handle}
                    member={m}
                    onDone={(message) => {
                      setDone(message);
                      void queries.invalidateQueries({ queryKey: membersKeys.all });
                    }}
                  />
                ))}
              </ul>
            )
          }
        </Loaded>
      </Announcer>
    </section>
  );
}

function ReinstateRow({ member: m, onDone }: { member: Member; onDone: (message: string) => void }) {
  const { busy, error, run } = useAction();
  const reinstate = async () => {
    if (await run(() => call(client.POST('/v0/members/{handle}/reinstate', { params: { path: { handle: m.handle } } })))) onDone(`Reinstated @${m.handle}.`);
  };
  return (
    <li className="card agent-card">
      <p className="agent-head">
        <Handle handle={m.handle} agent={m.type === 'agent'} />
        <span className="muted">{m.display_name !== m.handle ? m.display_name : null}</span>
      </p>
      <ErrorMessage>{error}</ErrorMessage>
      <ActionButton className="small" busy={busy} aria-label={`Reinstate @${m.handle}`} onClick={() => void reinstate()}>
        Reinstate
      </ActionButton>
    </li>
  );
}

/** Suspension refuses every key and session of the member at once, and those of the agents a suspended human operates. */
function SuspendMember({ me }: { me: string }) {
  const queries = useQueryClient();
  const [handle, setHandle] = useState('');
  const [confirming, setConfirming] = useState('');
  const [done, setDone] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone('');
    setConfirming(handle.trim().replace(/^@/, ''));
  };
  const suspend = async () => {
    await call(client.POST('/v0/members/{handle}/suspend', { params: { path: { handle: confirming } } }));
    setDone(`Suspended @${confirming}.`);
    setConfirming('');
    setHandle('');
    await queries.invalidateQueries({ queryKey: membersKeys.all });
    await queries.invalidateQueries({ queryKey: agentsKeys.mine });
  };
  return (
    <section aria-labelledby="suspend-member">
      <h2 id="suspend-member">Suspend a member</h2>
      <form className="card" onSubmit={submit}>
        <div className="field">
          <label htmlFor="suspend-handle">Handle of the member to suspend</label>
          <div className="inline-field">
            <input id="suspend-handle" type="text" required value={handle} onChange={(e) => setHandle(e.target.value)} autoCapitalize="none" spellCheck={false} />
            <button type="submit" className="danger secondary" disabled={handle.trim().replace(/^@/, '') === me}>
              Suspend…
            </button>
          </div>
          <p className="hint">Nothing is revoked: reinstating the member restores their keys and sessions.</p>
        </div>
      </form>
      {done ? <Notice>{done}</Notice> : null}
      {confirming ? (
        <ConfirmDialog title={`Suspend @${confirming}?`} confirmLabel="Suspend" danger onCancel={() => setConfirming('')} onConfirm={suspend}>
          <p>Their keys and sessions stop working everywhere at once, and so do those of any agents they operate.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
