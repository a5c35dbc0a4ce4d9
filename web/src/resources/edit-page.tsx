import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { ApiError, call, client, errorText } from '../api/client';
import { ErrorMessage, Loading, PageHeading, useTitle } from '../app/page';
import { Link, navigate } from '../app/router';
import { Handle } from '../app/ui';
import { Conflict, type Base } from './conflict';
import { MarkdownEditor } from './editor';
import { resourcesKeys, useMayWrite, useResource, type ResourceDocument } from './queries';
import { BackToResources, NameField, ResourceLoaded, resourcePath, RESOURCE_WORDS } from './shared';

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
  const expected = newer?.current_version ?? base.version;
  const dirty = content !== base.content || name !== base.name;

  // Leaving the page (reload, closing the tab) with unsaved text asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  /** Saves a version on top of `expected`; answers the newer version instead when someone saved one meanwhile. */
  const save = useMutation({
    mutationFn: async (): Promise<ResourceDocument | null> => {
      // The name is sent only when the person changed it, so an edit does not
      // undo a rename someone else made meanwhile.
      const body = { content, expected_version: expected, ...(name !== base.name ? { name } : {}) };
      try {
        await call(client.POST('/v0/spaces/{slug}/resources/{id}/versions', { params: { path: { slug, id } }, body }));
        return null;
      } catch (err) {
        // 409 is also an archived Space: only a newer version is a conflict to merge.
        if (!(err instanceof ApiError && err.status === 409)) throw err;
        const current = await queries
          .fetchQuery({
            queryKey: resourcesKeys.current(slug, id),
            queryFn: () => call(client.GET('/v0/spaces/{slug}/resources/{id}', { params: { path: { slug, id } } })),
          })
          .catch(() => null);
        // Otherwise the refusal itself says what went wrong.
        if (current === null || current.current_version === expected) throw err;
        return current;
      }
    },
    onSuccess: async (conflicting) => {
      if (conflicting) {
        setNewer(conflicting);
        return;
      }
      await queries.invalidateQueries({ queryKey: resourcesKeys.all(slug) });
      navigate(resourcePath(slug, id));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    if (name.trim() === '') {
      setNameError('The name cannot be empty.');
      return;
    }
    setNameError('');
    save.mutate();
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
      <form onSubmit={submit} noValidate>
        <NameField value={name} onChange={setName} error={nameError}>
          {name !== base.name ? <p className="hint">Saving renames the Resource; its address stays the same.</p> : null}
        </NameField>
        <MarkdownEditor id="resource-edit" label="Text" value={content} onChange={setContent} />
        <ErrorMessage>{save.isError ? errorText(save.error, RESOURCE_WORDS) : ''}</ErrorMessage>
        <div className="actions">
          <button type="submit" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : newer ? `Save on top of version ${newer.current_version}` : 'Save'}
          </button>
          <Link to={resourcePath(slug, id)} className="link-button secondary">
            Cancel
          </Link>
        </div>
      </form>
    </section>
  );
}
