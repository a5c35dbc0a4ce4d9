import { useRef, useState } from 'react';
import { useParams } from 'wouter';
import { errorText } from '../api/client';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { Link } from '../app/router';
import { Handle, Loaded, ShowMore, Time } from '../app/ui';
import { LineDiff } from './diff';
import { useResource, useVersion, useVersionList, type ResourceDocument } from './queries';
import { BackToResources, ResourceLoaded, resourcePath } from './shared';

export function ResourceHistoryPage() {
  const { slug, id } = useParams<{ slug: string; id: string }>();
  const query = useResource(slug, id);
  return <ResourceLoaded query={query}>{(doc) => <History slug={slug} doc={doc} />}</ResourceLoaded>;
}

function History({ slug, doc }: { slug: string; doc: ResourceDocument }) {
  useTitle(`History of ${doc.name}`);
  const versions = useVersionList(slug, doc.id);
  const current = doc.current_version;
  // Unset means the default pair, previous against current, which follows new versions live.
  const [picked, setPicked] = useState<{ from: number; to: number } | null>(null);
  const from = picked?.from ?? Math.max(1, current - 1);
  const to = picked?.to ?? current;
  const compareRef = useRef<HTMLElement>(null);

  const compareWithPrevious = (version: number) => {
    setPicked({ from: version - 1, to: version });
    compareRef.current?.scrollIntoView({ block: 'start' });
    compareRef.current?.querySelector<HTMLSelectElement>('select')?.focus();
  };

  return (
    <section className="resource-history">
      <BackToResources slug={slug} />
      <PageHeading>History of {doc.name}</PageHeading>
      <p className="resource-links-inline">
        <Link to={resourcePath(slug, doc.id)}>Read the current version</Link>
      </p>

      <section ref={compareRef} aria-labelledby="compare-heading" className="compare">
        <h2 id="compare-heading">Compare versions</h2>
        {current === 1 ? (
          <p className="muted">There is only one version so far: nothing to compare yet.</p>
        ) : (
          <>
            <div className="compare-pickers">
              <VersionSelect id="compare-from" label="From version" value={from} count={current} onChange={(v) => setPicked({ from: v, to })} />
              <VersionSelect id="compare-to" label="To version" value={to} count={current} onChange={(v) => setPicked({ from, to: v })} />
            </div>
            <VersionDiff slug={slug} id={doc.id} from={from} to={to} />
          </>
        )}
      </section>

      <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <Loaded query={versions} what="the versions">
          {(data) => (
            <>
              <div className="table-scroll">
                <table className="version-table">
                  <caption className="visually-hidden">Versions of {doc.name}, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Name</th>
                      <th scope="col">Saved by</th>
                      <th scope="col">When</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.pages
                      .flatMap((p) => p.versions)
                      .map((v) => (
                        <tr key={v.version}>
                          <th scope="row" data-label="Version">
                            <Link to={v.version === current ? resourcePath(slug, doc.id) : resourcePath(slug, doc.id, `?version=${v.version}`)}>
                              Version {v.version}
                            </Link>
                            {v.version === current ? (
                              <>
                                {' '}
                                <span className="badge">current</span>
                              </>
                            ) : null}
                          </th>
                          <td data-label="Name">{v.name}</td>
                          <td data-label="Saved by">
                            <Handle handle={v.created_by} />
                          </td>
                          <td data-label="When">
                            <Time iso={v.created_ts} />
                          </td>
                          <td className="row-actions">
                            {v.version > 1 ? (
                              <button type="button" className="secondary small" onClick={() => compareWithPrevious(v.version)}>
                                Compare<span className="visually-hidden"> version {v.version}</span> with {v.version - 1}
                              </button>
                            ) : null}
                          </td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </div>
              {versions.hasNextPage ? (
                <ShowMore busy={versions.isFetchingNextPage} onClick={versions.fetchNextPage}>
                  Show older versions
                </ShowMore>
              ) : null}
            </>
          )}
        </Loaded>
      </section>
    </section>
  );
}

function VersionSelect({ id, label, value, count, onChange }: { id: string; label: string; value: number; count: number; onChange: (v: number) => void }) {
  const numbers = Array.from({ length: count }, (_, i) => count - i);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {numbers.map((n) => (
          <option key={n} value={n}>
            {n === count ? `${n} (current)` : n}
          </option>
        ))}
      </select>
    </div>
  );
}

function VersionDiff({ slug, id, from, to }: { slug: string; id: string; from: number; to: number }) {
  const before = useVersion(slug, id, from);
  const after = useVersion(slug, id, to);
  if (from === to) return <p className="muted">Choose two different versions to see what changed.</p>;
  if (before.isError || after.isError) return <ErrorMessage>{`Could not load the versions: ${errorText(before.error ?? after.error)}`}</ErrorMessage>;
  if (!before.data || !after.data) return <Loading what="the versions" />;
  return (
    <div>
      {before.data.name !== after.data.name ? (
        <p>
          Renamed from “{before.data.name}” to “{after.data.name}”.
        </p>
      ) : null}
      <LineDiff before={before.data.content} after={after.data.content} label={`Changes from version ${from} to version ${to}`} />
    </div>
  );
}
