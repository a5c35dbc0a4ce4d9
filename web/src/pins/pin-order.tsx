import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call, client, type Space } from '../api/client';
import { useHostFeatures } from '../api/host';
import { useAction } from '../app/actions';
import { ErrorMessage } from '../app/page';
import { Link } from '../app/router';
import { Loaded } from '../app/ui';
import { pinLabel, useFrontPage, type FrontPagePin } from '../spaces/front-page';
import { spaceKeys, spacePath } from '../spaces/space';
import { MAX_PINS } from './data';
import { PinRepositoryFile, PinResource } from './pin-forms';

export function PinOrder({ space, canArrange }: { space: Space; canArrange: boolean }) {
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
    queries.setQueryData(spaceKeys.frontPage(slug), next);
    setAnnouncement(message);
    void queries.invalidateQueries({ queryKey: spaceKeys.all(slug) });
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
