import { type ReactNode, useEffect, useRef } from 'react';
import { ApiError } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { NotFoundPage } from '../app/not-found';
import { Link } from '../app/router';
import { Loaded } from '../app/ui';
import { spacePath } from '../spaces/space';
import type { FormWords } from '../app/form-errors';
import type { ResourceDocument, useResource } from './queries';
import './resources.css';

// A Space's Resources: named Markdown documents whose text lives in immutable,
// numbered versions (docs/resources.md). Saving adds a version; with
// `expected_version` it is a compare-and-swap, so an edit started from an
// older version is refused (409) instead of silently overwriting someone
// else's work, and the editor then shows what changed meanwhile.

export const resourcePath = (slug: string, id: string, rest = '') => spacePath(slug, `/resources/${encodeURIComponent(id)}${rest}`);

export function BackToResources({ slug }: { slug: string }) {
  return (
    <p className="resource-back">
      <Link to={spacePath(slug, '/resources')}>All Resources</Link>
    </p>
  );
}

/** A Resource id that is not in this Space is a 404 like any unknown page. */
export function ResourceLoaded({ query, children }: { query: ReturnType<typeof useResource>; children: (doc: ResourceDocument) => ReactNode }) {
  if (query.isError && query.error instanceof ApiError && query.error.status === 404) return <NotFoundPage />;
  return (
    <Loaded query={query} what="the Resource">
      {children}
    </Loaded>
  );
}

/** The text, its headings given anchors; `target` is the heading the address points at (`#section-…`). */
export function ResourceText({ source, target = null }: { source: string; target?: string | null }) {
  if (source.trim() === '') return <p className="muted">This version has no text.</p>;
  return <RenderedMarkdown source={source} className="resource-body" anchors target={target} />;
}

/** The Resource forms' labels for the fields the server may refuse. */
export const RESOURCE_WORDS: FormWords = { fields: { name: 'Name', content: 'Text' } };

/** A Resource's name, 1-200 characters and not blank; a refusal is tied to the field and takes focus. */
export function NameField({ value, onChange, error, children }: { value: string; onChange: (v: string) => void; error: string; children?: ReactNode }) {
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
