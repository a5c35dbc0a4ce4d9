import { useEffect } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../api/client';
import { PageHeading, useTitle } from '../app/page';
import { Link, useLocation } from '../app/router';
import { Handle, Loaded, Time } from '../app/ui';
import { useMayWrite, useResource, useVersion, type ResourceDocument } from './queries';
import { BackToResources, ResourceLoaded, ResourceText, resourcePath } from './shared';

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

/** The heading id the address names after `#` (a search result links to the heading above its match). */
function useAnchorTarget(): string | null {
  const hash = window.location.hash.slice(1);
  if (hash === '') return null;
  try {
    return decodeURIComponent(hash);
  } catch {
    return hash;
  }
}

function CurrentVersion({ slug, doc }: { slug: string; doc: ResourceDocument }) {
  useTitle(doc.name);
  const { mayWrite } = useMayWrite(slug);
  const target = useAnchorTarget();
  // The app navigates without loading a page, so the browser does not scroll to the
  // anchor itself. Landing there moves focus too (after the page heading took it),
  // so the keyboard and screen readers start at the heading the link meant.
  useEffect(() => {
    if (target === null) return;
    const heading = document.getElementById(target);
    if (!heading) return;
    heading.focus({ preventScroll: true });
    heading.scrollIntoView({ block: 'start' });
  }, [target, doc.id]);
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
      <ResourceText source={doc.content} target={target} />
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
