import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { call, client, errorText, type Space } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage, Loading } from '../app/page';
import type { FormWords } from '../app/form-errors';
import { AuthorHandle } from '../members/member-kind';
import { ShowMore, Time } from '../app/ui';
import { tasksKeys, useTaskMessages } from './queries';
import type { Task } from './rules';

// A task's discussion: messages with a `task:<id>` subject, open in every
// state (docs/tasks.md, "Discussion"). Shown oldest first, as a conversation
// reads; older pages on request. A link to one message (`?message=<id>`, as a
// search result gives) reads back until it is there, then scrolls to it,
// marks it and gives it focus.

export function TaskDiscussion({ space, task, mayPost, target = null }: { space: Space; task: Task; mayPost: boolean; target?: number | null }) {
  const messages = useTaskMessages(space.slug, task.id);
  const list = useMemo(() => (messages.data?.pages ?? []).flat().reverse(), [messages.data]);
  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = messages;
  const held = target !== null && list.some((m) => m.id === target);
  const landed = useRef<number | null>(null);
  const items = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (target !== null && !held && messages.isSuccess && hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage();
  }, [target, held, messages.isSuccess, hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage]);

  // After the page heading took focus on arrival (a passive effect too, earlier in the page).
  useEffect(() => {
    if (target === null || landed.current === target) return;
    const item = items.current?.querySelector<HTMLElement>(`[data-message="${target}"]`);
    if (!item) return;
    landed.current = target;
    item.focus({ preventScroll: true });
    item.scrollIntoView({ block: 'center' });
  }, [list, target]);

  return (
    <section aria-labelledby="task-discussion" className="task-discussion">
      <h2 id="task-discussion">Discussion</h2>
      {messages.isPending ? (
        <Loading what="the discussion" />
      ) : messages.isError && !messages.data ? (
        <ErrorMessage>{`Could not load the discussion: ${errorText(messages.error)}`}</ErrorMessage>
      ) : list.length === 0 ? (
        <p className="muted">No messages yet.</p>
      ) : (
        <>
          {hasNextPage ? (
            <ShowMore busy={isFetchingNextPage} onClick={() => fetchNextPage()} busyText="Loading older messages…">
              Show older messages
            </ShowMore>
          ) : null}
          {isFetchNextPageError ? <ErrorMessage>{`Could not load older messages: ${errorText(messages.error)}`}</ErrorMessage> : null}
          {target !== null && !held && !hasNextPage ? <p className="notice">The message this link points to is not in this discussion.</p> : null}
          <ol ref={items} className="plain-list task-messages" aria-label="Messages">
            {list.map((m) => (
              <li
                key={m.id}
                className={m.id === target ? 'task-message targeted' : 'task-message'}
                data-message={m.id}
                {...(m.id === target ? { 'aria-current': true, tabIndex: -1 } : {})}
              >
                <p className="task-message-meta">
                  <AuthorHandle handle={m.author} /> <Time iso={m.created_ts} />
                  {m.id === target ? <span className="badge target-badge">linked</span> : null}
                </p>
                <RenderedMarkdown source={m.body} />
              </li>
            ))}
          </ol>
        </>
      )}
      {mayPost ? <Composer slug={space.slug} id={task.id} /> : null}
    </section>
  );
}

const DISCUSSION_WORDS: FormWords = { fields: { body: 'The message' } };

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
      <ErrorMessage>{problem || (post.isError ? errorText(post.error, DISCUSSION_WORDS) : '')}</ErrorMessage>
      <button type="submit" aria-disabled={post.isPending}>
        Post
      </button>
    </form>
  );
}
