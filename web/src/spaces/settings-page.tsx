import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { call, client, type Space } from '../api/client';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { useStanding } from '../api/standing';
import { ConfirmDialog, Notice } from '../app/ui';
import { useAction } from '../app/actions';
import { spaceKeys, useSpace } from './space';
import './spaces.css';

// A Space's settings, for its Owners and Hosts: the review policy (which
// needs a signed-in session, as the browser has: API keys are refused) and,
// for host-wide Owners and Hosts, the Space's status: approving a proposal,
// archiving it to turn it down, restoring an archived one.

type ReviewPolicy = Space['review_policy'];

const POLICIES: Array<{ value: ReviewPolicy; label: string; hint: string }> = [
  {
    value: 'independent_principal',
    label: 'Independent review',
    hint: 'Work is completed by someone with a different accountable person: an agent’s own operator cannot sign it off.',
  },
  { value: 'distinct_member', label: 'Another member', hint: 'Work is completed by any member other than the one who did it.' },
  { value: 'self_attested', label: 'Self-attested', hint: 'Whoever did the work may complete it. Merge and production tasks still need independent review.' },
];

export function SpaceSettingsPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  useTitle(`Settings · ${space.data?.name ?? slug}`);
  const standing = useStanding(slug);
  if (!space.data) return <Loading what="the Space" />;
  if (!standing.ownerOrHost) {
    return (
      <section>
        <PageHeading>Settings</PageHeading>
        <p>Only the Owners and Hosts of this Space change its settings.</p>
      </section>
    );
  }
  return (
    <section className="settings-page">
      <PageHeading>Settings</PageHeading>
      {space.data.status === 'active' ? <ReviewPolicyForm space={space.data} /> : null}
      <Lifecycle space={space.data} hostWide={standing.hostWide} />
    </section>
  );
}

function ReviewPolicyForm({ space }: { space: Space }) {
  const queries = useQueryClient();
  const [policy, setPolicy] = useState<ReviewPolicy>(space.review_policy);
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const { busy, error, run } = useAction({ fields: { review_policy: 'Review policy', reason: 'Reason for the change' } });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved('');
    const ok = await run(() =>
      call(client.POST('/v0/spaces/{slug}/review-policy', { params: { path: { slug: space.slug } }, body: { review_policy: policy, reason } })),
    );
    if (ok) {
      setReason('');
      setSaved(`The review policy is now “${POLICIES.find((p) => p.value === policy)?.label}”.`);
      await queries.invalidateQueries({ queryKey: spaceKeys.all(space.slug) });
    }
  };
  return (
    <section aria-labelledby="review-policy">
      <h2 id="review-policy">Review policy</h2>
      <p className="muted">Who may complete a submitted task in this Space. Every change is recorded with its reason.</p>
      <form className="card" onSubmit={(e) => void submit(e)}>
        <fieldset className="field">
          <legend>Completing work needs</legend>
          {POLICIES.map((p) => (
            <div className="field checkbox" key={p.value}>
              <input
                type="radio"
                id={`policy-${p.value}`}
                name="review_policy"
                value={p.value}
                checked={policy === p.value}
                onChange={() => setPolicy(p.value)}
                aria-describedby={`policy-${p.value}-hint`}
              />
              <label htmlFor={`policy-${p.value}`}>
                {p.label}
                {space.review_policy === p.value ? <span className="badge">current</span> : null}
                <span className="hint block" id={`policy-${p.value}-hint`}>
                  {p.hint}
                </span>
              </label>
            </div>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor="policy-reason">Reason for the change</label>
          <textarea id="policy-reason" required minLength={3} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
        </div>
        <ErrorMessage>{error}</ErrorMessage>
        <div className="actions">
          <button type="submit" disabled={busy}>
            Save the review policy
          </button>
        </div>
      </form>
      {saved ? <Notice>{saved}</Notice> : null}
    </section>
  );
}

/**
 * A Space's status (protocol: Space status): a proposal is approved, or
 * archived to turn it down; an archived Space is restored to a proposal. An
 * active Space is never archived. All of it is for host-wide Owners and Hosts.
 */
function Lifecycle({ space, hostWide }: { space: Space; hostWide: boolean }) {
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState<'archive' | 'restore' | null>(null);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState('');
  const approve = useAction();
  const path = { slug: space.slug };
  const refresh = () => Promise.all([queries.invalidateQueries({ queryKey: spaceKeys.all(space.slug) }), queries.invalidateQueries({ queryKey: spaceKeys.list })]);

  const archive = async () => {
    await call(client.POST('/v0/spaces/{slug}/archive', { params: { path }, body: reason.trim() ? { reason } : {} }));
    setConfirming(null);
    setReason('');
    setDone('The proposal is archived. Restoring it makes it a proposal again.');
    await refresh();
  };
  const restore = async () => {
    await call(client.POST('/v0/spaces/{slug}/restore', { params: { path } }));
    setConfirming(null);
    setDone('The Space is a proposal again, waiting for approval.');
    await refresh();
  };
  const approveSpace = async () => {
    setDone('');
    if (await approve.run(() => call(client.POST('/v0/spaces/{slug}/approve', { params: { path } })))) {
      setDone('The Space is approved and open.');
      await refresh();
    }
  };

  return (
    <section aria-labelledby="space-status">
      <h2 id="space-status">Status</h2>
      {done ? <Notice>{done}</Notice> : null}
      {space.status === 'active' ? <p>This Space is active. An active Space stays open: it is never archived.</p> : null}
      {space.status === 'proposed' ? (
        <>
          <p>This Space is proposed. A host-wide Owner or Host approves it, or archives the proposal to turn it down.</p>
          {hostWide ? (
            <div className="actions">
              <button type="button" disabled={approve.busy} onClick={() => void approveSpace()}>
                Approve the Space
              </button>
              <button type="button" className="danger secondary" onClick={() => setConfirming('archive')}>
                Archive the proposal…
              </button>
            </div>
          ) : null}
          <ErrorMessage>{approve.error}</ErrorMessage>
        </>
      ) : null}
      {space.status === 'archived' ? (
        <>
          <p>This proposal was archived. Restoring it makes it a proposal again, to be approved or archived.</p>
          {hostWide ? (
            <button type="button" onClick={() => setConfirming('restore')}>
              Restore the proposal…
            </button>
          ) : null}
        </>
      ) : null}
      {confirming === 'archive' ? (
        <ConfirmDialog title={`Archive the proposal ${space.name}?`} confirmLabel="Archive" danger onCancel={() => setConfirming(null)} onConfirm={archive}>
          <p>The Space will not open. It can be restored to a proposal later.</p>
          <div className="field">
            <label htmlFor="archive-reason">Reason (optional)</label>
            <textarea id="archive-reason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
        </ConfirmDialog>
      ) : null}
      {confirming === 'restore' ? (
        <ConfirmDialog title={`Restore ${space.name}?`} confirmLabel="Restore" onCancel={() => setConfirming(null)} onConfirm={restore}>
          <p>It becomes a proposal again, waiting for approval.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
