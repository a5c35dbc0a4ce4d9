import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useParams } from 'wouter';
import { ApiError, call, client, errorText } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { NotFoundPage } from '../app/not-found';
import { Link, navigate, useLocation } from '../app/router';
import { Handle, Loaded, ShowMore, Time } from '../app/ui';
import { spacePath } from '../spaces/space';
import {
  resourceKey,
  resourcesKey,
  useMayWrite,
  useResource,
  useResourceList,
  useVersion,
  useVersionList,
  type ResourceDocument,
} from './queries';
import { LineDiff } from './diff';
import { MarkdownEditor } from './editor';
import './resources.css';

// A Space's Resources: named Markdown documents whose text lives in immutable,
// numbered versions (docs/resources.md). Saving adds a version; with
// `expected_version` it is a compare-and-swap, so an edit started from an
// older version is refused (409) instead of silently overwriting someone
// else's work, and the editor then shows what changed meanwhile.

const resourcePath = (slug: string, id: string, rest = '') => spacePath(slug, `/resources/${encodeURIComponent(id)}${rest}`);

function BackToResources({ slug }: { slug: string }) {
  return (
    <p className="resource-back">
      <Link to={spacePath(slug, '/resources')}>All Resources</Link>
    </p>
  );
}

/** A Resource id that is not in this Space is a 404 like any unknown page. */
function ResourceLoaded({ query, children }: { query: ReturnType<typeof useResource>; children: (doc: ResourceDocument) => ReactNode }) {
  if (query.isError && query.error instanceof ApiError && query.error.status === 404) return <NotFoundPage />;
  return (
    <Loaded query={query} what="the Resource">
      {children}
    </Loaded>
  );
}

// ---- List ----

export function ResourceListPage() {
  const { slug } = useParams<{ slug: string }>();
  useTitle('Resources');
  const list = useResourceList(slug);
  const { mayWrite } = useMayWrite(slug);
  return (
    <section>
      <div className="resource-heading">
        <PageHeading>Resources</PageHeading>
        {mayWrite ? (
          <Link to={spacePath(slug, '/resources/new')} className="link-button">
            New Resource
          </Link>
        ) : null}
      </div>
      <p className="muted">Markdown documents of this Space, most recently changed first. Every change is kept as a version.</p>
      <Loaded query={list} what="the Resources">
        {(data) => {
          const resources = data.pages.flatMap((p) => p.resources);
          if (resources.length === 0) return <p>No Resources yet.</p>;
          return (
            <>
              <div className="table-scroll">
                <table className="resource-table">
                  <caption className="visually-hidden">Resources, most recently changed first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Version</th>
                      <th scope="col">Changed</th>
                      <th scope="col">By</th>
                    </tr>
                  </thead>
                  <tbody>
                    {resources.map((r) => (
                      <tr key={r.id}>
                        <th scope="row" data-label="Name">
                          <Link to={resourcePath(slug, r.id)}>{r.name}</Link>
                        </th>
                        <td data-label="Version">{r.current_version}</td>
                        <td data-label="Changed">
                          <Time iso={r.updated_ts} />
                        </td>
                        <td data-label="By">
                          <Handle handle={r.updated_by} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {list.hasNextPage ? (
                <ShowMore busy={list.isFetchingNextPage} onClick={list.fetchNextPage}>
                  Show more Resources
                </ShowMore>
              ) : null}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

// ---- Read ----

export function ResourcePage() {
  const { slug, id } = useParams<{ slug: string; id: string }>();
  const { search } = useLocation();
  const asked = Number(search.get('version'));
  const query = useResource(slug, id);
  return (
    <ResourceLoaded query={query}>
      {(doc) =>
        Number.isInteger(asked) && asked >= 1 && asked !== doc.current_version ? (
          <OldVersion slug={slug} doc={doc} version={asked} />
        ) : (
          <CurrentVersion slug={slug} doc={doc} />
        )
      }
    </ResourceLoaded>
  );
}

function CurrentVersion({ slug, doc }: { slug: string; doc: ResourceDocument }) {
  useTitle(doc.name);
  const { mayWrite } = useMayWrite(slug);
  return (
    <article className="resource">
      <BackToResources slug={slug} />
      <PageHeading>{doc.name}</PageHeading>
      <p className="resource-meta">
        Version {doc.current_version}, saved by <Handle handle={doc.updated_by} /> on <Time iso={doc.updated_ts} />
        {doc.current_version > 1 ? (
          <>
            {' '}
            · created by <Handle handle={doc.created_by} /> on <Time iso={doc.created_ts} />
          </>
        ) : null}
      </p>
      <ul className="resource-links">
        {mayWrite ? (
          <li>
            <Link to={resourcePath(slug, doc.id, '/edit')} className="link-button">
              Edit
            </Link>
          </li>
        ) : null}
        <li>
          <Link to={resourcePath(slug, doc.id, '/history')} className="link-button secondary">
            History
          </Link>
        </li>
      </ul>
      <ResourceText source={doc.content} />
    </article>
  );
}

function OldVersion({ slug, doc, version }: { slug: string; doc: ResourceDocument; version: number }) {
  const query = useVersion(slug, doc.id, version);
  useTitle(`${query.data?.name ?? doc.name}, version ${version}`);
  if (query.isError && query.error instanceof ApiError && query.error.status === 404) {
    return (
      <section>
        <BackToResources slug={slug} />
        <PageHeading>No version {version}</PageHeading>
        <p>
          “{doc.name}” has versions 1 to {doc.current_version}. <Link to={resourcePath(slug, doc.id, '/history')}>See its history</Link>.
        </p>
      </section>
    );
  }
  return (
    <Loaded query={query} what={`version ${version}`}>
      {(v) => (
        <article className="resource">
          <BackToResources slug={slug} />
          <PageHeading>
            {v.name} <span className="heading-version">(version {v.version})</span>
          </PageHeading>
          <p className="notice resource-old">
            This is version {v.version} of {doc.current_version}, saved by <Handle handle={v.created_by} /> on <Time iso={v.created_ts} />.{' '}
            <Link to={resourcePath(slug, doc.id)}>Read the current version</Link> or{' '}
            <Link to={resourcePath(slug, doc.id, '/history')}>go back to the history</Link>.
          </p>
          <ResourceText source={v.content} />
        </article>
      )}
    </Loaded>
  );
}

function ResourceText({ source }: { source: string }) {
  if (source.trim() === '') return <p className="muted">This version has no text.</p>;
  return <RenderedMarkdown source={source} className="resource-body" />;
}

// ---- New ----

export function NewResourcePage() {
  const { slug } = useParams<{ slug: string }>();
  useTitle('New Resource');
  const queries = useQueryClient();
  const { mayWrite, why } = useMayWrite(slug);
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const [nameError, setNameError] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (name.trim() === '') {
      setNameError('Give the Resource a name.');
      return;
    }
    setNameError('');
    setBusy(true);
    setError('');
    try {
      const created = await call(client.POST('/v0/spaces/{slug}/resources', { params: { path: { slug } }, body: { name, content } }));
      await queries.invalidateQueries({ queryKey: resourcesKey(slug) });
      navigate(resourcePath(slug, created.id));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <section>
      <BackToResources slug={slug} />
      <PageHeading>New Resource</PageHeading>
      {!mayWrite ? (
        <p>{why || 'You cannot write Resources in this Space.'}</p>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <NameField value={name} onChange={setName} error={nameError} />
          <MarkdownEditor id="resource-new" label="Text" value={content} onChange={setContent} />
          <ErrorMessage>{error}</ErrorMessage>
          <div className="actions">
            <button type="submit" aria-disabled={busy}>
              {busy ? 'Creating…' : 'Create Resource'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** A Resource's name, 1-200 characters and not blank; a refusal is tied to the field and takes focus. */
function NameField({ value, onChange, error, children }: { value: string; onChange: (v: string) => void; error: string; children?: ReactNode }) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (error) input.current?.focus();
  }, [error]);
  return (
    <div className="field">
      <label htmlFor="resource-name">Name</label>
      <input
        ref={input}
        id="resource-name"
        type="text"
        value={value}
        maxLength={200}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'resource-name-error' : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error ? (
        <p id="resource-name-error" role="alert" className="field-error">
          {error}
        </p>
      ) : null}
      {children}
    </div>
  );
}

// ---- Edit ----

/** What the person started editing from, kept as it was however the Resource moves on. */
interface Base {
  version: number;
  name: string;
  content: string;
}

export function ResourceEditPage() {
  const { slug, id } = useParams<{ slug: string; id: string }>();
  const query = useResource(slug, id, { fresh: true });
  const { mayWrite, why } = useMayWrite(slug);
  // The editor starts from a fresh read, not from what the cache held when
  // the page opened: an edit based on a stale copy would only meet a 409.
  const fresh = query.isFetchedAfterMount ? query.data : undefined;
  const [base, setBase] = useState<Base | null>(null);
  useEffect(() => {
    if (fresh && base === null) setBase({ version: fresh.current_version, name: fresh.name, content: fresh.content });
  }, [fresh, base]);

  return (
    <ResourceLoaded query={query}>
      {(doc) =>
        !mayWrite ? (
          <section>
            <BackToResources slug={slug} />
            <PageHeading>Edit {doc.name}</PageHeading>
            <p>{why || 'You cannot edit this Resource.'}</p>
            <p>
              <Link to={resourcePath(slug, id)}>Read it</Link>
            </p>
          </section>
        ) : base === null ? (
          <Loading what="the Resource" />
        ) : (
          <ResourceEditor slug={slug} id={id} base={base} live={doc} />
        )
      }
    </ResourceLoaded>
  );
}

function ResourceEditor({ slug, id, base, live }: { slug: string; id: string; base: Base; live: ResourceDocument }) {
  useTitle(`Edit ${base.name}`);
  const queries = useQueryClient();
  const [name, setName] = useState(base.name);
  const [content, setContent] = useState(base.content);
  const [nameError, setNameError] = useState('');
  /** The version a save must be on top of: the base, or the newer one a conflict showed. */
  const [newer, setNewer] = useState<ResourceDocument | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const expected = newer?.current_version ?? base.version;
  const dirty = content !== base.content || name !== base.name;

  // Leaving the page (reload, closing the tab) with unsaved text asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (name.trim() === '') {
      setNameError('The name cannot be empty.');
      return;
    }
    setNameError('');
    setBusy(true);
    setError('');
    try {
      // The name is sent only when the person changed it, so an edit does not
      // undo a rename someone else made meanwhile.
      const body = { content, expected_version: expected, ...(name !== base.name ? { name } : {}) };
      await call(client.POST('/v0/spaces/{slug}/resources/{id}/versions', { params: { path: { slug, id } }, body }));
      await queries.invalidateQueries({ queryKey: resourcesKey(slug) });
      navigate(resourcePath(slug, id));
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 409) {
        // 409 is also an archived Space: only a newer version is a conflict to merge.
        try {
          const current = await queries.fetchQuery({
            queryKey: [...resourceKey(slug, id), 'current'],
            queryFn: () => call(client.GET('/v0/spaces/{slug}/resources/{id}', { params: { path: { slug, id } } })),
          });
          if (current.current_version !== expected) {
            setNewer(current);
            return;
          }
        } catch {
          // Fall through: the refusal itself says what went wrong.
        }
      }
      setError(errorText(err));
    }
  };

  return (
    <section className="resource-edit">
      <BackToResources slug={slug} />
      <PageHeading>Edit {base.name}</PageHeading>
      <p className="resource-meta">
        {newer
          ? `You started from version ${base.version}. Saving adds version ${expected + 1} on top of version ${expected}`
          : `Editing from version ${base.version}. Saving adds version ${expected + 1}`}
        ; earlier versions stay in the <Link to={resourcePath(slug, id, '/history')}>history</Link>.
      </p>
      {/* The Space feed keeps `live` current: say so as soon as someone else saves, not only when this save is refused. */}
      {live.current_version > expected ? (
        <div role="status" className="notice live-version">
          <p>
            Version {live.current_version} was just saved by <Handle handle={live.updated_by} />. Saving now would be refused until you
            have seen their changes.
          </p>
          <button type="button" className="secondary small" onClick={() => setNewer(live)}>
            Show their changes
          </button>
        </div>
      ) : null}
      {newer ? <Conflict key={newer.current_version} base={base} newer={newer} draft={content} /> : null}
      <form onSubmit={(e) => void save(e)} noValidate>
        <NameField value={name} onChange={setName} error={nameError}>
          {name !== base.name ? <p className="hint">Saving renames the Resource; its address stays the same.</p> : null}
        </NameField>
        <MarkdownEditor id="resource-edit" label="Text" value={content} onChange={setContent} />
        <ErrorMessage>{error}</ErrorMessage>
        <div className="actions">
          <button type="submit" aria-disabled={busy}>
            {busy ? 'Saving…' : newer ? `Save on top of version ${newer.current_version}` : 'Save'}
          </button>
          <Link to={resourcePath(slug, id)} className="link-button secondary">
            Cancel
          </Link>
        </div>
      </form>
    </section>
  );
}

/**
 * Someone saved a newer version while this person was editing: what they
 * changed (from the version this edit started from), their whole text to copy
 * from, and what saving now would change. The person's own text stays in the
 * editor below, untouched.
 */
function Conflict({ base, newer, draft }: { base: Base; newer: ResourceDocument; draft: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="conflict" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading" ref={heading} tabIndex={-1}>
        Version {newer.current_version} was saved while you were editing
      </h2>
      <p>
        <Handle handle={newer.updated_by} /> saved version {newer.current_version} on <Time iso={newer.updated_ts} />. Your text is kept in the
        editor below and nothing of it was saved. Merge their changes into it, then save on top of version {newer.current_version}.
      </p>
      {newer.name !== base.name ? (
        <p>
          The Resource is now named “{newer.name}” (it was “{base.name}”).
        </p>
      ) : null}
      <h3>
        Their changes, version {base.version} to {newer.current_version}
      </h3>
      <LineDiff before={base.content} after={newer.content} label={`From version ${base.version} to ${newer.current_version}`} />
      <details className="conflict-more">
        <summary>The text of version {newer.current_version}</summary>
        <pre className="conflict-text mono">{newer.content}</pre>
      </details>
      <details className="conflict-more">
        <summary>What saving your text would change in version {newer.current_version}</summary>
        <LineDiff before={newer.content} after={draft} label={`From version ${newer.current_version} to your text`} />
      </details>
    </section>
  );
}

// ---- History ----

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
