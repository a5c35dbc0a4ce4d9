import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, client } from '../api/client';
import { useAction } from '../app/actions';
import { ErrorMessage } from '../app/page';
import type { FrontPagePin } from '../spaces/front-page';
import { spaceKeys } from '../spaces/space';
import { MAX_PINS, useResources } from './data';

// Owners and Hosts pin directly, without a proposal: each form sends the whole
// new list, the present pins with the new one at the end.

/** Owners and Hosts pin a Resource of the Space directly, at the end of the list. */
export function PinResource({ slug, pinned, onPinned }: { slug: string; pinned: FrontPagePin[]; onPinned: (message: string) => void }) {
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
      await queries.invalidateQueries({ queryKey: spaceKeys.all(slug) });
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
export function PinRepositoryFile({ slug, pinned, onPinned }: { slug: string; pinned: FrontPagePin[]; onPinned: (message: string) => void }) {
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
      await queries.invalidateQueries({ queryKey: spaceKeys.all(slug) });
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
