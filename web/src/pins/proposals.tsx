import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { call, client } from '../api/client';
import { ActionButton, Announcer, useAction, useAnnouncer } from '../app/actions';
import { ErrorMessage, Loading } from '../app/page';
import { Handle, Loaded, Time } from '../app/ui';
import { useFrontPage } from '../spaces/front-page';
import { spaceKeys } from '../spaces/space';
import { pinsKeys, useProposals, useResources, type PinProposal } from './data';

export function ProposePin({ slug }: { slug: string }) {
  const resources = useResources(slug);
  const pins = useFrontPage(slug);
  const proposals = useProposals(slug);
  const queries = useQueryClient();
  const [resourceId, setResourceId] = useState('');
  const [rationale, setRationale] = useState('');
  const [sent, setSent] = useState('');
  const { busy, error, run } = useAction({ fields: { resource_id: 'Resource', rationale: 'The reason' } });

  const pinned = new Set((pins.data ?? []).map((p) => p.id));
  const pending = new Set((proposals.data ?? []).filter((p) => p.status === 'pending').map((p) => p.resource_id));
  const choices = (resources.data ?? []).filter((r) => !pinned.has(r.id) && !pending.has(r.id));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSent('');
    const name = choices.find((r) => r.id === resourceId)?.name ?? resourceId;
    const ok = await run(() => call(client.POST('/v0/spaces/{slug}/pin-proposals', { params: { path: { slug } }, body: { resource_id: resourceId, rationale } })));
    if (ok) {
      setResourceId('');
      setRationale('');
      setSent(`Proposed “${name}” for the front page. An Owner or Host will accept or decline it.`);
      await queries.invalidateQueries({ queryKey: pinsKeys.proposals(slug) });
    }
  };

  return (
    <section aria-labelledby="propose-pin">
      <h2 id="propose-pin">Propose a pin</h2>
      {resources.isPending ? <Loading what="the Resources" /> : null}
      {resources.data && choices.length === 0 ? (
        <p className="muted">Every Resource of this Space is pinned or already proposed.</p>
      ) : null}
      {choices.length > 0 ? (
        <form className="card" onSubmit={(e) => void submit(e)}>
          <div className="field">
            <label htmlFor="pin-resource">Resource</label>
            <select id="pin-resource" required value={resourceId} onChange={(e) => setResourceId(e.target.value)}>
              <option value="">Choose a Resource…</option>
              {choices.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="pin-rationale">Why should it be on the front page?</label>
            <textarea id="pin-rationale" required maxLength={2000} value={rationale} onChange={(e) => setRationale(e.target.value)} />
            <p className="hint">You may have one open proposal in this Space at a time.</p>
          </div>
          <ErrorMessage>{error}</ErrorMessage>
          <div className="actions">
            <button type="submit" disabled={busy}>
              Propose the pin
            </button>
          </div>
        </form>
      ) : null}
      {sent ? (
        <p role="status" className="notice">
          {sent}
        </p>
      ) : null}
    </section>
  );
}

export function Proposals({ slug, canDecide }: { slug: string; canDecide: boolean }) {
  const proposals = useProposals(slug);
  const resources = useResources(slug);
  const names = new Map((resources.data ?? []).map((r) => [r.id, r.name]));
  const nameOf = (id: string) => names.get(id) ?? id;
  const announcer = useAnnouncer();
  const setDecided = announcer.announce;
  return (
    <section aria-labelledby="pin-proposals">
      <h2 id="pin-proposals">Proposals</h2>
      <Announcer announcer={announcer}>
        <Loaded query={proposals} what="the proposals">
          {(list) => {
            const pending = list.filter((p) => p.status === 'pending');
            const decidedList = list.filter((p) => p.status !== 'pending');
            return (
              <>
                <h3>Waiting for a decision</h3>
                {pending.length === 0 ? <p className="muted">No proposal is waiting.</p> : null}
                <ul className="plain-list">
                  {pending.map((p) => (
                    <ProposalCard key={p.id} slug={slug} proposal={p} name={nameOf(p.resource_id)} canDecide={canDecide} onDecided={setDecided} />
                  ))}
                </ul>
                {decidedList.length > 0 ? (
                  <>
                    <h3>Decided</h3>
                    <ul className="plain-list">
                      {decidedList.map((p) => (
                        <ProposalCard key={p.id} slug={slug} proposal={p} name={nameOf(p.resource_id)} canDecide={false} onDecided={setDecided} />
                      ))}
                    </ul>
                  </>
                ) : null}
              </>
            );
          }}
        </Loaded>
      </Announcer>
    </section>
  );
}

function ProposalCard({
  slug,
  proposal: p,
  name,
  canDecide,
  onDecided,
}: {
  slug: string;
  proposal: PinProposal;
  name: string;
  canDecide: boolean;
  onDecided: (message: string) => void;
}) {
  const queries = useQueryClient();
  const { busy, error, run } = useAction({ fields: { reason: 'The reason to decline' } });
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState('');
  const reasonField = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (declining) reasonField.current?.focus();
  }, [declining]);

  const path = { slug, id: p.id };
  const accept = async () => {
    if (await run(() => call(client.POST('/v0/spaces/{slug}/pin-proposals/{id}/accept', { params: { path } })))) {
      onDecided(`Accepted: “${name}” is pinned.`);
      await queries.invalidateQueries({ queryKey: spaceKeys.all(slug) });
    }
  };
  const decline = async (event: FormEvent) => {
    event.preventDefault();
    if (await run(() => call(client.POST('/v0/spaces/{slug}/pin-proposals/{id}/decline', { params: { path }, body: { reason } })))) {
      onDecided(`Declined the proposal to pin “${name}”.`);
      await queries.invalidateQueries({ queryKey: pinsKeys.proposals(slug) });
    }
  };

  return (
    <li className="card proposal">
      <p className="proposal-head">
        <strong>{name}</strong>
        <span className="badge">{p.status}</span>
      </p>
      <p className="muted small-print">
        Proposed by <Handle handle={p.proposed_by} />, <Time iso={p.created_ts} />
        {p.decided_ts ? (
          <>
            {'; '}
            {p.status} {p.decided_by ? <>by <Handle handle={p.decided_by} /></> : null} <Time iso={p.decided_ts} />
          </>
        ) : null}
      </p>
      <p className="proposal-text">{p.rationale}</p>
      {p.decline_reason ? <p className="proposal-text">Declined because: {p.decline_reason}</p> : null}
      <ErrorMessage>{error}</ErrorMessage>
      {canDecide && !declining ? (
        <div className="actions">
          <ActionButton className="small" busy={busy} aria-label={`Accept: pin ${name}`} onClick={() => void accept()}>
            Accept
          </ActionButton>
          <button type="button" className="secondary small" disabled={busy} aria-label={`Decline: do not pin ${name}`} onClick={() => setDeclining(true)}>
            Decline
          </button>
        </div>
      ) : null}
      {canDecide && declining ? (
        <form onSubmit={(e) => void decline(e)}>
          <div className="field">
            <label htmlFor={`decline-${p.id}`}>Why decline pinning “{name}”?</label>
            <textarea id={`decline-${p.id}`} ref={reasonField} required maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
            <p className="hint">The proposer and everyone following the Space see this reason.</p>
          </div>
          <div className="actions">
            <ActionButton type="submit" className="danger small" busy={busy}>
              Decline the proposal
            </ActionButton>
            <button type="button" className="secondary small" onClick={() => setDeclining(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
    </li>
  );
}
