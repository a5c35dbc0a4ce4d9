import { useMutation, useQueryClient } from '@tanstack/react-query';
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
  const [problem, setProblem] = useState('');
  const post = useMutation({
    mutationFn: () => call(client.POST('/v0/spaces/{slug}/tasks/{id}/messages', { params: { path: { slug, id } }, body: { body } })),
    onSuccess: async () => {
      setBody('');
      await queries.invalidateQueries({ queryKey: tasksKeys.messages(slug, id) });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (post.isPending) return;
    post.reset();
    setProblem(body.trim() === '' ? 'Write a message first.' : '');
    if (body.trim() !== '') post.mutate();
  };

  return (
    <form className="task-composer" onSubmit={submit}>
      <div className="field">
        <label htmlFor="task-message">Add to the discussion</label>
        <textarea id="task-message" maxLength={20000} value={body} aria-describedby="task-message-hint" onChange={(e) => setBody(e.target.value)} />
        <p id="task-message-hint" className="hint">
          Markdown; @handle mentions the member.
        </p>
      </div>
      <ErrorMessage>{problem || (post.isError ? errorText(post.error) : '')}</ErrorMessage>
      <button type="submit" aria-disabled={post.isPending}>
        Post
      </button>
    </form>
  );
}
