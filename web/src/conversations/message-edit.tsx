import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { call, client, errorText } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage, Loading } from '../app/page';
import { Time } from '../app/ui';
import { conversationKeys, type Message } from './data';
import { sendsOnKey, useEnterSends } from './send-key';

// Editing one's own message in place, and the "edited" mark that opens its
// earlier versions. The server judges every edit (the author only, while they
// may post there, against the version they edited); the page offers Edit on
// the reader's own messages only.

/** The inline editor: the body in a textarea; Enter (as the composer's setting says) saves, Escape cancels. */
export function EditMessage({ message, onDone }: { message: Message; onDone: () => void }) {
  const id = useId();
  const queries = useQueryClient();
  const [text, setText] = useState(message.body);
  // The version this edit started from: a live refresh that brings someone's later edit must
  // not turn this one into an edit of theirs (the server refuses it as stale instead).
  const [base] = useState(message.version);
  const [enterSends] = useEnterSends();
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);

  const save = useMutation({
    mutationFn: async (body: string) => {
      await call(
        client.PATCH('/v0/spaces/{slug}/messages/{id}', {
          params: { path: { slug: message.space, id: message.id } },
          body: { body, expected_version: base },
        }),
      );
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: conversationKeys.all(message.space) });
      onDone();
    },
  });
  const submit = () => {
    if (save.isPending || text.trim() === '') return;
    if (text === message.body && base === message.version) onDone();
    else save.mutate(text);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onDone();
    } else if (sendsOnKey({ ...event, isComposing: event.nativeEvent.isComposing }, enterSends)) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <form
      className="message-edit"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={`${id}-body`} className="visually-hidden">
        Edit your message
      </label>
      <textarea id={`${id}-body`} ref={area} value={text} onChange={(event) => setText(event.target.value)} onKeyDown={onKeyDown} aria-describedby={`${id}-hint`} />
      <ErrorMessage>{save.isError ? `Could not save: ${errorText(save.error)}` : ''}</ErrorMessage>
      <div className="message-edit-actions">
        <p id={`${id}-hint`} className="hint">
          {enterSends ? 'Enter saves' : 'Ctrl+Enter saves'}, Escape cancels.
        </p>
        <button type="button" className="secondary small" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="small" aria-disabled={save.isPending} disabled={text.trim() === ''}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** "edited", beside the time: opens the message's earlier bodies below it. */
export function EditedMark({ open, controls, onToggle }: { open: boolean; controls: string; onToggle: () => void }) {
  return (
    <button type="button" className="link-button edited-mark" aria-label="edited: show earlier versions" aria-expanded={open} aria-controls={controls} onClick={onToggle}>
      edited
    </button>
  );
}

/** The versions, read when first opened. */
export function MessageVersions({ message, id }: { message: Message; id: string }) {
  return (
    <div id={id} className="message-versions">
      <Versions message={message} />
    </div>
  );
}

function Versions({ message }: { message: Message }) {
  const versions = useQuery({
    // Under the conversation's key: an edit anywhere refreshes an open history too.
    queryKey: [...conversationKeys.all(message.space), 'versions', message.id, message.version],
    queryFn: async () =>
      (await call(client.GET('/v0/spaces/{slug}/messages/{id}/versions', { params: { path: { slug: message.space, id: message.id } } }))).versions,
  });
  if (versions.isPending) return <Loading what="earlier versions" />;
  if (versions.isError) return <ErrorMessage>{`Could not load earlier versions: ${errorText(versions.error)}`}</ErrorMessage>;
  // Newest first, as a history is read; the last is the message as posted.
  const shown = [...versions.data].reverse();
  return (
    <ol className="version-list" aria-label="Versions of this message, newest first">
      {shown.map((version, i) => (
        <li key={version.version}>
          <p className="version-meta">
            {i === 0 ? 'Current' : version.version === 1 ? 'As posted' : `Version ${version.version}`}, <Time iso={version.created_ts} />
          </p>
          <RenderedMarkdown source={version.body} className="message-body" />
        </li>
      ))}
    </ol>
  );
}

/**
 * "Delete" asks first, in place: the message's own row says what will go and offers to keep
 * it, so a slip of the pointer deletes nothing. Someone else's message (as its Space's
 * Owner/Host) says whose it is.
 */
export function DeleteMessage({ message, reader, onDone }: { message: Message; reader: string | null; onDone: () => void }) {
  const queries = useQueryClient();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), []);
  const remove = useMutation({
    mutationFn: async () => {
      await call(client.DELETE('/v0/spaces/{slug}/messages/{id}', { params: { path: { slug: message.space, id: message.id } } }));
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: conversationKeys.all(message.space) });
      onDone();
    },
  });
  const whose = message.author === reader ? 'this message' : `@${message.author}’s message`;
  return (
    <div className="message-delete" role="group" aria-label="Delete the message?">
      <p>
        Delete {whose}? Its text and earlier versions go for everyone; a note that it was deleted stays in its place.
      </p>
      <ErrorMessage>{remove.isError ? `Could not delete: ${errorText(remove.error)}` : ''}</ErrorMessage>
      <div className="message-edit-actions">
        <button ref={keep} type="button" className="secondary small" onClick={onDone}>
          Keep it
        </button>
        <button type="button" className="danger small" aria-disabled={remove.isPending} onClick={() => remove.isPending || remove.mutate()}>
          {remove.isPending ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </div>
  );
}

/** What stays of a deleted message: who deleted it, when it was (its time is in the meta line). */
export function Tombstone({ message }: { message: Message }) {
  const by = message.deleted_by !== null && message.deleted_by !== message.author ? ` by @${message.deleted_by}` : '';
  return <p className="tombstone">This message was deleted{by}.</p>;
}
