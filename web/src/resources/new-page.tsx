import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { call, client, errorText } from '../api/client';
import { ErrorMessage, PageHeading, useTitle } from '../app/page';
import { navigate } from '../app/router';
import { MarkdownEditor } from './editor';
import { resourcesKeys, useMayWrite } from './queries';
import { BackToResources, NameField, resourcePath, RESOURCE_WORDS } from './shared';

export function NewResourcePage() {
  const { slug } = useParams<{ slug: string }>();
  useTitle('New Resource');
  const queries = useQueryClient();
  const { mayWrite, why } = useMayWrite(slug);
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const [nameError, setNameError] = useState('');
  const create = useMutation({
    mutationFn: () => call(client.POST('/v0/spaces/{slug}/resources', { params: { path: { slug } }, body: { name, content } })),
    onSuccess: async (created) => {
      await queries.invalidateQueries({ queryKey: resourcesKeys.all(slug) });
      navigate(resourcePath(slug, created.id));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    if (name.trim() === '') {
      setNameError('Give the Resource a name.');
      return;
    }
    setNameError('');
    create.mutate();
  };

  return (
    <section>
      <BackToResources slug={slug} />
      <PageHeading>New Resource</PageHeading>
      {!mayWrite ? (
        <p>{why || 'You cannot write Resources in this Space.'}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <NameField value={name} onChange={setName} error={nameError} />
          <MarkdownEditor id="resource-new" label="Text" value={content} onChange={setContent} />
          <ErrorMessage>{create.isError ? errorText(create.error, RESOURCE_WORDS) : ''}</ErrorMessage>
          <div className="actions">
            <button type="submit" aria-disabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create Resource'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
