import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, client, errorText, type Space } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage } from '../app/page';
import { AuthorHandle } from '../members/member-kind';
import { Loaded, Time } from '../app/ui';
import { tasksKeys, useTaskMessages } from './queries';
import type { Task } from './rules';

// A task's discussion: messages with a `task:<id>` subject, open in every
// state (docs/tasks.md, "Discussion"). Shown oldest first, as a conversation reads.

export function TaskDiscussion({ space, task, mayPost }: { space: Space; task: Task; mayPost: boolean }) {
  const messages = useTaskMessages(space.slug, task.id);
  return (
    <section aria-labelledby="task-discussion" className="task-discussion">
      <h2 id="task-discussion">Discussion</h2>
      <Loaded query={messages} what="the discussion">
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No messages yet.</p>
          ) : (
            <ol className="plain-list task-messages" aria-label="Messages">
              {[...list].reverse().map((m) => (
                <li key={m.id} className="task-message">
                  <p className="task-message-meta">
                    <AuthorHandle handle={m.author} /> <Time iso={m.created_ts} />
                  </p>
                  <RenderedMarkdown source={m.body} />
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
      {mayPost ? <Composer slug={space.slug} id={task.id} /> : null}
    </section>
  );
}

function Composer({ slug, id }: { slug: string; id: number }) {
  const queries = useQueryClient();
  const [body, setBody] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (body.trim() === '') {
      setError('Write a message first.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      await call(client.POST('/v0/spaces/{slug}/tasks/{id}/messages', { params: { path: { slug, id } }, body: { body } }));
      setBody('');
      await queries.invalidateQueries({ queryKey: tasksKeys.messages(slug, id) });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="task-composer" onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor="task-message">Add to the discussion</label>
        <textarea id="task-message" maxLength={20000} value={body} aria-describedby="task-message-hint" onChange={(e) => setBody(e.target.value)} />
        <p id="task-message-hint" className="hint">
          Markdown; @handle mentions the member.
        </p>
      </div>
      <ErrorMessage>{error}</ErrorMessage>
      <button type="submit" aria-disabled={busy}>
        Post
      </button>
    </form>
  );
}
