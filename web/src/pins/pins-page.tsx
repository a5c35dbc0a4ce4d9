import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { call, client, type Schemas, type Space } from '../api/client';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { useHostFeatures } from '../api/host';
import { Link } from '../app/router';
import { useStanding } from '../api/standing';
import { Handle, Loaded, Time } from '../app/ui';
import { ActionButton, Announcer, useAction, useAnnouncer } from '../app/actions';
import { pinLabel, useFrontPage, type FrontPagePin } from '../spaces/front-page';
import { spacePath, useSpace } from '../spaces/space';
import '../spaces/spaces.css';

// The Space's pins and the proposals to add one (docs/pins.md). Owners and
// Hosts reorder with Move up / Move down buttons rather than drag and drop,
// so the keyboard, a screen reader and a mouse all do it the same way; each
// move is the whole new list (`POST …/pins`), announced with its new place.

type PinProposal = Schemas['PinProposal'];
const MAX_PINS = 5;

export function PinsPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  useTitle(`Pins · ${space.data?.name ?? slug}`);
  const standing = useStanding(slug);
  const features = useHostFeatures();
  if (!space.data) return <Loading what="the Space" />;
  const active = space.data.status === 'active';
  // "May act" (protocol: Space admission): admitted, or any active member of an open Space not removed from it.
  const mayAct =
    standing.me !== null &&
    (standing.ownerOrHost || standing.membership === 'admitted' || (space.data.join_policy === 'open' && standing.membership !== 'removed'));
  return (
    <section className="pins-page">
      <PageHeading>Pins</PageHeading>
      <p>
        The front page shows up to {MAX_PINS} pins in this order: Resources of this Space
        {features.data?.repository_pins ? ', or Markdown files of this host’s repository' : ''}. The first is the Space’s
        README. Members propose a Resource with a reason; an Owner or Host accepts or declines.
      </p>
      {!active ? <p className="notice">This Space is {space.data.status}: its pins cannot change now.</p> : null}
      <PinOrder space={space.data} canArrange={standing.ownerOrHost && active} />
      {mayAct && active ? <ProposePin slug={slug} /> : null}
      <Proposals slug={slug} canDecide={standing.ownerOrHost && active} />
    </section>
  );
}

function PinOrder({ space, canArrange }: { space: Space; canArrange: boolean }) {
  const slug = space.slug;
  const pins = useFrontPage(slug);
  const features = useHostFeatures();
  const queries = useQueryClient();
  const { busy, error, run } = useAction();
  const [announcement, setAnnouncement] = useState('');
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  const [focusNext, setFocusNext] = useState<{ id: string; prefer: 'up' | 'down' } | null>(null);

  // Keep focus with the pin that moved: on the same button, or the other one once it reached an end.
  useEffect(() => {
    if (!focusNext) return;
    const preferred = buttons.current.get(`${focusNext.id}:${focusNext.prefer}`);
    const other = buttons.current.get(`${focusNext.id}:${focusNext.prefer === 'up' ? 'down' : 'up'}`);
    (preferred && !preferred.disabled ? preferred : other)?.focus();
    setFocusNext(null);
  }, [focusNext, pins.data]);

  const save = async (next: FrontPagePin[], reason: string, message: string) => {
    setAnnouncement('');
    const ok = await run(() =>
      call(client.POST('/v0/spaces/{slug}/pins', { params: { path: { slug } }, body: { resource_ids: next.map((p) => p.id), reason } })),
    );
    if (!ok) return false;
    // Show the new order at once; the refetch brings the server's own view of it.
    queries.setQueryData(['space', slug, 'front-page'], next);
    setAnnouncement(message);
    void queries.invalidateQueries({ queryKey: ['space', slug] });
    return true;
  };
  const move = async (list: FrontPagePin[], index: number, by: -1 | 1) => {
    const next = [...list];
    const [pin] = next.splice(index, 1);
    if (!pin) return;
    next.splice(index + by, 0, pin);
    const place = index + by + 1;
    if (await save(next, `Moved ${pin.name} to position ${place}`, `Moved “${pin.name}” to position ${place} of ${next.length}.`)) {
      setFocusNext({ id: pin.id, prefer: by === -1 ? 'up' : 'down' });
    }
  };
  const unpin = async (list: FrontPagePin[], index: number) => {
    const pin = list[index];
    if (!pin) return;
    await save(
      list.filter((_, i) => i !== index),
      `Unpinned ${pin.name}`,
      `Unpinned “${pin.name}”. ${list.length - 1} ${list.length - 1 === 1 ? 'pin remains' : 'pins remain'}.`,
    );
  };

  return (
    <section aria-labelledby="pinned-now">
      <h2 id="pinned-now">Pinned now</h2>
      <p role="status" className={announcement ? 'notice' : 'visually-hidden'}>
        {announcement}
      </p>
      <ErrorMessage>{error}</ErrorMessage>
      <Loaded query={pins} what="the pins">
        {(list) =>
          list.length === 0 ? (
            <p className="muted">Nothing is pinned.</p>
          ) : (
            <ol className="pin-order">
              {list.map((pin, index) => (
                <li key={pin.id} className="card pin-row">
                  <span className="pin-place" aria-hidden="true">
                    {index + 1}
                  </span>
                  <span className="pin-name">
                    {pin.kind === 'resource' && !pin.missing ? (
                      <Link to={spacePath(slug, `/resources/${encodeURIComponent(pin.id)}`)}>{pin.name}</Link>
                    ) : (
                      <span className={pin.kind === 'repository' ? 'mono' : undefined}>{pin.name}</span>
                    )}
                    {index === 0 ? <span className="badge">README</span> : null}
                    {pin.kind === 'repository' ? <span className="badge">repository file</span> : null}
                    {pin.missing ? <span className="badge missing">missing</span> : null}
                  </span>
                  {canArrange ? (
                    <span className="pin-actions">
                      <button
                        type="button"
                        className="secondary small"
                        ref={(el) => void (el ? buttons.current.set(`${pin.id}:up`, el) : buttons.current.delete(`${pin.id}:up`))}
                        disabled={busy || index === 0}
                        aria-label={`Move up: ${pinLabel(pin)}`}
                        onClick={() => void move(list, index, -1)}
                      >
                        Move up
                      </button>
                      <button
                        type="button"
                        className="secondary small"
                        ref={(el) => void (el ? buttons.current.set(`${pin.id}:down`, el) : buttons.current.delete(`${pin.id}:down`))}
                        disabled={busy || index === list.length - 1}
                        aria-label={`Move down: ${pinLabel(pin)}`}
                        onClick={() => void move(list, index, 1)}
                      >
                        Move down
                      </button>
                      <button
                        type="button"
                        className="danger secondary small"
                        disabled={busy}
                        aria-label={`Unpin: ${pinLabel(pin)}`}
                        onClick={() => void unpin(list, index)}
                      >
                        Unpin
                      </button>
                    </span>
                  ) : null}
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
      {canArrange && pins.data && pins.data.length < MAX_PINS ? (
        <>
          <PinResource slug={slug} pinned={pins.data} onPinned={setAnnouncement} />
          {features.data?.repository_pins ? <PinRepositoryFile slug={slug} pinned={pins.data} onPinned={setAnnouncement} /> : null}
        </>
      ) : null}
    </section>
  );
}

/** Owners and Hosts pin a Resource of the Space directly, at the end of the list. */
function PinResource({ slug, pinned, onPinned }: { slug: string; pinned: FrontPagePin[]; onPinned: (message: string) => void }) {
  const resources = useResources(slug);
  const queries = useQueryClient();
  const [resourceId, setResourceId] = useState('');
  const { busy, error, run } = useAction();
  const ids = pinned.map((p) => p.id);
  const choices = (resources.data ?? []).filter((r) => !ids.includes(r.id));
  if (choices.length === 0) return null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const name = choices.find((r) => r.id === resourceId)?.name ?? resourceId;
    const body = { resource_ids: [...ids, resourceId], reason: `Pinned ${name}` };
    if (await run(() => call(client.POST('/v0/spaces/{slug}/pins', { params: { path: { slug } }, body })))) {
      setResourceId('');
      await queries.invalidateQueries({ queryKey: ['space', slug] });
      onPinned(`Pinned “${name}” at position ${ids.length + 1}.`);
    }
  };
  return (
    <form className="card pin-resource" onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor="pin-directly">Pin a Resource</label>
        <div className="inline-field">
          <select id="pin-directly" required value={resourceId} onChange={(e) => setResourceId(e.target.value)}>
            <option value="">Choose a Resource…</option>
            {choices.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={busy}>
            Pin
          </button>
        </div>
        <p className="hint">It goes at the end; move it from there. At most {MAX_PINS} pins.</p>
      </div>
      <ErrorMessage>{error}</ErrorMessage>
    </form>
  );
}

/**
 * Owners and Hosts pin a Markdown file of the host's repository (`repo:<path>`,
 * read from `main`), offered only where the host has one. There is no listing
 * of the repository's files: the person names the path, and the server checks
 * that it is text on `main` and says why not.
 */
function PinRepositoryFile({ slug, pinned, onPinned }: { slug: string; pinned: FrontPagePin[]; onPinned: (message: string) => void }) {
  const queries = useQueryClient();
  const [path, setPath] = useState('');
  const { busy, error, run } = useAction();
  const ids = pinned.map((p) => p.id);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // As a person may paste it: with the entry's prefix, or a leading slash.
    const file = path.trim().replace(/^repo:/, '').replace(/^\/+/, '');
    const body = { resource_ids: [...ids, `repo:${file}`], reason: `Pinned the repository file ${file}` };
    if (await run(() => call(client.POST('/v0/spaces/{slug}/pins', { params: { path: { slug } }, body })))) {
      setPath('');
      await queries.invalidateQueries({ queryKey: ['space', slug] });
      onPinned(`Pinned the repository file “${file}” at position ${ids.length + 1}.`);
    }
  };
  return (
    <form className="card pin-resource" onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor="pin-repository-file">Pin a repository file</label>
        <div className="inline-field">
          <input
            id="pin-repository-file"
            type="text"
            required
            placeholder="docs/guide.md"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            aria-describedby="pin-repository-file-hint"
            autoCapitalize="none"
            spellCheck={false}
          />
          <button type="submit" disabled={busy}>
            Pin file
          </button>
        </div>
        <p className="hint" id="pin-repository-file-hint">
          The path of a Markdown file on the main branch of this host’s repository. The pin follows the file as it changes.
        </p>
      </div>
      <ErrorMessage>{error}</ErrorMessage>
    </form>
  );
}

function useProposals(slug: string) {
  return useQuery({
    queryKey: ['space', slug, 'pin-proposals'],
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/pin-proposals', { params: { path: { slug }, query: { limit: 100 } } }))).pin_proposals,
  });
}

/** The Space's Resources by id, for naming proposals and offering what may be proposed. */
function useResources(slug: string) {
  return useQuery({
    queryKey: ['space', slug, 'resources', 'for-pins'],
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/resources', { params: { path: { slug }, query: { limit: 500 } } }))).resources,
  });
}

function ProposePin({ slug }: { slug: string }) {
  const resources = useResources(slug);
  const pins = useFrontPage(slug);
  const proposals = useProposals(slug);
  const queries = useQueryClient();
  const [resourceId, setResourceId] = useState('');
  const [rationale, setRationale] = useState('');
  const [sent, setSent] = useState('');
  const { busy, error, run } = useAction();

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
      await queries.invalidateQueries({ queryKey: ['space', slug, 'pin-proposals'] });
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

function Proposals({ slug, canDecide }: { slug: string; canDecide: boolean }) {
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
  const { busy, error, run } = useAction();
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
      await queries.invalidateQueries({ queryKey: ['space', slug] });
    }
  };
  const decline = async (event: FormEvent) => {
    event.preventDefault();
    if (await run(() => call(client.POST('/v0/spaces/{slug}/pin-proposals/{id}/decline', { params: { path }, body: { reason } })))) {
      onDecided(`Declined the proposal to pin “${name}”.`);
      await queries.invalidateQueries({ queryKey: ['space', slug, 'pin-proposals'] });
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
