import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, errorText } from '../api/client';
import { useSession } from '../api/session';
import { ErrorMessage, PageHeading, useTitle } from '../app/page';
import { Link, navigate, signInPath, useLocation } from '../app/router';
import { ShowMore } from '../app/ui';
import { useSpace } from '../spaces/space';
import { directOnly, readFilters, searchPath, withDirectOnly, type SearchFilters, type SearchKind } from './address';
import { useSearchResults } from './queries';
import { SearchResultItem } from './results';
import './search.css';

// The results page, `/search?q=…`. The address holds the query and every
// filter, so Back, reload and a shared link show the same search; each chip is
// a toggle button that changes the address. A refusal of the query (422) is
// shown at the field, in the server's words; too many searches (429) says to
// sign in or wait.

const KIND_CHIPS: Array<{ kind: SearchKind | null; label: string }> = [
  { kind: null, label: 'Everything' },
  { kind: 'message', label: 'Messages' },
  { kind: 'task', label: 'Tasks' },
  { kind: 'resource', label: 'Resources' },
];

export function SearchPage() {
  const { search } = useLocation();
  const filters = readFilters(search);
  const { state } = useSession();
  const reader = state.status === 'signed-in' ? state.member.handle : null;
  const results = useSearchResults(filters);
  useTitle(filters.q.trim() === '' ? 'Search' : `Search: ${filters.q}`);

  const go = (next: Partial<SearchFilters>) => navigate(searchPath({ ...filters, ...next }));
  const refused = results.error instanceof ApiError && results.error.status === 422 && !results.data ? results.error.detail : '';

  return (
    <section className="search-page">
      <PageHeading>Search</PageHeading>
      {/* Keyed by the query: Back to another search shows that search's words in the field. */}
      <QueryForm
        key={filters.q}
        initial={filters.q}
        refused={refused}
        // The same words again ask again (after "too many searches", say): the address would not change.
        onSearch={(q) => (q === filters.q ? void results.refetch() : go({ q }))}
      />
      <Filters filters={filters} signedIn={reader !== null} go={go} />
      {filters.q.trim() === '' ? (
        <p className="muted">
          Type what to look for: words (all must match), <code>word*</code> for a word’s beginning, <code>"a phrase"</code>, <code>-word</code> to leave
          out, and <code>from:handle</code>, <code>in:space</code>, <code>before:2025-01-31</code> or <code>after:…</code> to narrow.
        </p>
      ) : (
        <Results results={results} filters={filters} reader={reader} />
      )}
    </section>
  );
}

function QueryForm({ initial, refused, onSearch }: { initial: string; refused: string; onSearch: (q: string) => void }) {
  const [q, setQ] = useState(initial);
  const [empty, setEmpty] = useState(false);
  const problem = empty ? 'Type what to look for first.' : refused;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setEmpty(q.trim() === '');
    if (q.trim() !== '') onSearch(q);
  };
  return (
    <form role="search" aria-label="Search Atrium" className="search-form" onSubmit={submit}>
      <div className="field">
        <label htmlFor="search-q">Search for</label>
        <div className="search-row">
          <input
            id="search-q"
            type="search"
            data-search-field=""
            value={q}
            autoComplete="off"
            enterKeyHint="search"
            aria-keyshortcuts="/"
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'search-q-error' : undefined}
            onChange={(e) => {
              setQ(e.target.value);
              setEmpty(false);
            }}
          />
          <button type="submit">Search</button>
        </div>
        {problem ? (
          <p id="search-q-error" role="alert" className="field-error">
            {problem}
          </p>
        ) : null}
      </div>
    </form>
  );
}

function Filters({ filters, signedIn, go }: { filters: SearchFilters; signedIn: boolean; go: (next: Partial<SearchFilters>) => void }) {
  const dm = directOnly(filters.q);
  return (
    <div className="search-filters">
      <Chips label="Kind">
        {KIND_CHIPS.map(({ kind, label }) => (
          <Chip key={label} pressed={filters.kind === kind} onClick={() => go({ kind })}>
            {label}
          </Chip>
        ))}
      </Chips>
      {signedIn || filters.space !== null ? (
        <Chips label="Where">
          {signedIn ? (
            // Edits `is:dm` in the query itself, so the field says what is searched.
            <Chip pressed={dm} onClick={() => go({ q: withDirectOnly(filters.q, !dm) })}>
              Direct messages only
            </Chip>
          ) : null}
          {filters.space !== null ? (
            <Chip pressed onClick={() => go({ space: null })}>
              In <SpaceName slug={filters.space} />
            </Chip>
          ) : null}
        </Chips>
      ) : null}
      <Chips label="Order">
        <Chip pressed={filters.sort === 'relevance'} onClick={() => go({ sort: 'relevance' })}>
          Most relevant
        </Chip>
        <Chip pressed={filters.sort === 'newest'} onClick={() => go({ sort: 'newest' })}>
          Newest first
        </Chip>
      </Chips>
    </div>
  );
}

function SpaceName({ slug }: { slug: string }) {
  return <>{useSpace(slug).data?.name ?? slug}</>;
}

function Chips({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="group" aria-label={label} className="chips">
      <span className="chips-label" aria-hidden="true">
        {label}
      </span>
      {children}
    </div>
  );
}

/** A toggle: `aria-pressed` says whether it applies, and a tick shows it, not colour alone. */
function Chip({ pressed, onClick, children }: { pressed: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button type="button" className="chip" aria-pressed={pressed} onClick={onClick}>
      {pressed ? <span aria-hidden="true">✓ </span> : null}
      {children}
    </button>
  );
}

function Results({ results, filters, reader }: { results: ReturnType<typeof useSearchResults>; filters: SearchFilters; reader: string | null }) {
  const { pathname, search } = useLocation();
  const list = useMemo(() => (results.data?.pages ?? []).flatMap((page) => page.results), [results.data]);
  const items = useRef<HTMLOListElement>(null);
  /** How many results were shown when "More results" was pressed: the first new one takes focus. */
  const firstNew = useRef<number | null>(null);

  useEffect(() => {
    const at = firstNew.current;
    if (at === null || list.length <= at) return;
    firstNew.current = null;
    items.current?.querySelectorAll<HTMLElement>('.search-result-title a')[at]?.focus();
  }, [list]);

  if (results.isPending) {
    return (
      <p role="status" className="muted">
        Searching…
      </p>
    );
  }
  if (results.isError && !results.data) {
    const error = results.error;
    // A refused query is shown at the field.
    if (error instanceof ApiError && error.status === 422) return null;
    if (error instanceof ApiError && error.status === 429) {
      return (
        <ErrorMessage>
          {reader === null ? (
            <>
              Too many searches from this address without signing in. <Link to={signInPath(pathname + '?' + search.toString())}>Sign in</Link>, or
              wait a minute and try again.
            </>
          ) : (
            'Too many searches just now. Wait a minute and try again.'
          )}
        </ErrorMessage>
      );
    }
    return <ErrorMessage>{`Could not search: ${errorText(error)}`}</ErrorMessage>;
  }

  const more = results.hasNextPage;
  return (
    <>
      <p role="status" className="search-count">
        {list.length === 0
          ? `Nothing found for “${filters.q}”.`
          : `${list.length} ${list.length === 1 ? 'result' : 'results'}${more ? ' so far; more below' : ''}.`}
      </p>
      {list.length === 0 ? (
        <div className="search-empty">
          <p>Try fewer words, another spelling, or <code>word*</code> to match the start of a word.</p>
          {filters.kind !== null || filters.space !== null || directOnly(filters.q) ? <p>Filters are on: turn them off above to search everywhere.</p> : null}
          {reader === null ? (
            <p>
              Signed out, search covers the public Spaces. <Link to={signInPath(pathname + '?' + search.toString())}>Sign in</Link> to search the Spaces you
              belong to and your direct messages too.
            </p>
          ) : null}
        </div>
      ) : (
        <ol ref={items} className="plain-list search-results" aria-label="Results">
          {list.map((result) => (
            <li key={`${result.kind}:${String(result.id)}`}>
              <SearchResultItem result={result} reader={reader} />
            </li>
          ))}
        </ol>
      )}
      {results.isFetchNextPageError ? <ErrorMessage>{`Could not load more results: ${errorText(results.error)}`}</ErrorMessage> : null}
      {more ? (
        <ShowMore
          busy={results.isFetchingNextPage}
          busyText="Loading more results…"
          onClick={() => {
            firstNew.current = list.length;
            return results.fetchNextPage();
          }}
        >
          More results
        </ShowMore>
      ) : null}
    </>
  );
}
