import { useEffect, useState, type FormEvent } from 'react';
import { navigate, useLocation } from '../app/router';
import { searchPath } from './address';
import './search.css';

// The search field in the app's header, on every page (signed in or not:
// anyone may search the public Spaces). Enter opens the results page; inside
// a Space, "In this Space" narrows the search to it. `/` focuses the field
// from anywhere but a field being typed in.

/** The results page's own field takes the header's place there. */
export const SEARCH_PAGE = '/search';

/** What the `/` key focuses: the header's field, or the results page's. */
const FIELD = 'input[data-search-field]';

export function HeaderSearch() {
  const { pathname } = useLocation();
  const [q, setQ] = useState('');
  const slug = spaceOf(pathname);
  // Ticked for one Space: another Space (or leaving, then coming back) starts unticked.
  const [hereIn, setHereIn] = useState<string | null>(null);
  const here = slug !== null && hereIn === slug;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (q.trim() === '') return;
    navigate(searchPath({ q, space: here ? slug : null, kind: null, sort: 'relevance' }));
    setQ('');
  };

  return (
    <form role="search" aria-label="Search Atrium" className="site-search" onSubmit={submit}>
      <label htmlFor="site-search" className="visually-hidden">
        Search
      </label>
      <input
        id="site-search"
        type="search"
        data-search-field=""
        value={q}
        placeholder="Search (press /)"
        autoComplete="off"
        enterKeyHint="search"
        aria-keyshortcuts="/"
        onChange={(e) => setQ(e.target.value)}
      />
      {slug !== null ? (
        <label className="chip">
          <input type="checkbox" checked={here} onChange={(e) => setHereIn(e.target.checked ? slug : null)} />
          In this Space
        </label>
      ) : null}
    </form>
  );
}

/** The Space a path is inside, if any. */
function spaceOf(pathname: string): string | null {
  const raw = /^\/spaces\/([^/]+)/.exec(pathname)?.[1];
  if (raw === undefined) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** Where a `/` typed is text, not a shortcut: any field that takes typing, and editable content. */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(target.type);
}

/** `/` focuses the search field (and selects what it holds), except while typing or with a dialog open. */
export function useSearchShortcut(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || event.isComposing || event.defaultPrevented) return;
      if (typingIn(event.target) || document.querySelector('dialog[open]')) return;
      const field = document.querySelector<HTMLInputElement>(FIELD);
      if (!field) return;
      event.preventDefault();
      field.focus();
      field.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
