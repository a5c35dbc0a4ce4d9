import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { call, client, errorText, type Space } from '../api/client';
import { ErrorMessage, PageHeading, useTitle } from '../app/page';
import type { FormWords } from '../app/form-errors';
import { Link } from '../app/router';
import { spacePath, useSpace } from '../spaces/space';
import { useStanding } from '../api/standing';
import { Handle, Notice } from '../app/ui';
import { tasksKeys, useTaskColumn } from './queries';
import { CREATABLE_KINDS, mayActOnTasks, STATUS_LABEL, STATUSES, type Task, type TaskStatus } from './rules';
import './tasks.css';

// The task board: every task of the Space in a column for its state, newest
// first, each column read and paged on its own. Claims, submissions and completions made anywhere (an agent's
// member key, the CLI, another tab) move the cards live through the Space feed.

export function TaskBoardPage() {
  const { slug } = useParams<{ slug: string }>();
  const space = useSpace(slug);
  const standing = useStanding(slug);
  useTitle(space.data ? `Tasks · ${space.data.name}` : 'Tasks');
  const mayCreate = space.data ? mayActOnTasks(space.data, standing) : false;

  return (
    <section>
      <PageHeading>Tasks</PageHeading>
      <p className="muted">
        Work in this Space moves through these states: a member claims an open task, submits the work, and another member
        completes it as the Space&rsquo;s review policy asks.
      </p>
      {space.data && mayCreate ? <NewTask space={space.data} /> : null}
      {space.data && !mayCreate ? <WhyNoNewTask space={space.data} signedIn={standing.me !== null} /> : null}
      <div className="task-board">
        {STATUSES.map((status) => (
          <TaskColumn key={status} slug={slug} status={status} />
        ))}
      </div>
    </section>
  );
}

function WhyNoNewTask({ space, signedIn }: { space: Space; signedIn: boolean }) {
  if (!signedIn) {
    return (
      <p>
        <Link to={`/sign-in?next=${encodeURIComponent(spacePath(space.slug, '/tasks'))}`}>Sign in</Link> to create and claim tasks.
      </p>
    );
  }
  if (space.status !== 'active') return <p className="muted">This Space is {space.status}: its tasks do not change.</p>;
  return <p className="muted">Only admitted members create and claim tasks in this Space.</p>;
}

function TaskColumn({ slug, status }: { slug: string; status: TaskStatus }) {
  const id = `task-column-${status}`;
  const column = useTaskColumn(slug, status);
  const tasks = column.data?.pages.flat() ?? [];
  return (
    <section className={`task-column task-column-${status}`} aria-labelledby={id}>
      <h2 id={id}>
        {STATUS_LABEL[status]} <span className="badge">{column.hasNextPage ? `${tasks.length}+` : tasks.length}</span>
      </h2>
      {column.isPending ? (
        <p className="muted task-column-empty">Loading…</p>
      ) : column.isError ? (
        <ErrorMessage>{`Could not load these tasks: ${errorText(column.error)}`}</ErrorMessage>
      ) : tasks.length === 0 ? (
        <p className="muted task-column-empty">None</p>
      ) : (
        <ul className="plain-list">
          {tasks.map((task) => (
            <li key={task.id}>
              <TaskCard slug={slug} task={task} />
            </li>
          ))}
        </ul>
      )}
      {column.hasNextPage ? (
        <button type="button" className="secondary small" disabled={column.isFetchingNextPage} onClick={() => void column.fetchNextPage()}>
          {column.isFetchingNextPage ? 'Loading…' : `Show more ${STATUS_LABEL[status].toLowerCase()} tasks`}
        </button>
      ) : null}
    </section>
  );
}

function TaskCard({ slug, task }: { slug: string; task: Task }) {
  return (
    <article className="task-card" aria-labelledby={`task-card-${task.id}`}>
      <h3 id={`task-card-${task.id}`}>
        <Link to={spacePath(slug, `/tasks/${task.id}`)}>{task.title}</Link>
      </h3>
      <p className="task-card-meta">
        <span>#{task.id}</span>
        {task.kind !== 'general' ? <span className="badge">{task.kind.replace('_', ' ')}</span> : null}
      </p>
      <p className="task-card-who">
        <TaskPeople task={task} />
      </p>
    </article>
  );
}

/** Who the task is with now, in the words of its state. */
export function TaskPeople({ task }: { task: Task }) {
  switch (task.status) {
    case 'claimed':
      return (
        <>
          Claimed by <Handle handle={task.claimant ?? '?'} />
        </>
      );
    case 'submitted':
      return (
        <>
          Submitted by <Handle handle={task.claimant ?? '?'} />
        </>
      );
    case 'completed':
      return task.completion ? (
        <>
          Done by <Handle handle={task.completion.worker} />, completed by <Handle handle={task.completion.completer} />
        </>
      ) : (
        <>Completed</>
      );
    default:
      return (
        <>
          Created by <Handle handle={task.created_by} />
        </>
      );
  }
}

const KIND_HINT: Record<(typeof CREATABLE_KINDS)[number], string> = {
  general: 'General: follows the Space’s review policy.',
  evidence: 'Evidence: gathering facts; follows the Space’s review policy.',
  merge: 'Merge: always needs a completer with a different accountable principal.',
  production: 'Production: always needs a completer with a different accountable principal.',
};

/** The new-task form's labels for the fields the server may refuse. */
const NEW_TASK_WORDS: FormWords = { fields: { title: 'Title', kind: 'Kind', body: 'Description' } };

function NewTask({ space }: { space: Space }) {
  const queries = useQueryClient();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [kind, setKind] = useState<(typeof CREATABLE_KINDS)[number]>('general');
  const [body, setBody] = useState('');
  const [problem, setProblem] = useState('');
  const [created, setCreated] = useState<Task | null>(null);
  const titleRef = useRef<HTMLInputElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (open) titleRef.current?.focus();
  }, [open]);

  // On a refusal, what was typed stays in the form.
  const create = useMutation({
    mutationFn: () =>
      call(client.POST('/v0/spaces/{slug}/tasks', { params: { path: { slug: space.slug } }, body: { title, kind, ...(body ? { body } : {}) } })),
    onSuccess: async (task) => {
      await queries.invalidateQueries({ queryKey: tasksKeys.all(space.slug) });
      setCreated(task);
      setTitle('');
      setBody('');
      setKind('general');
      setOpen(false);
      toggleRef.current?.focus();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    create.reset();
    setProblem('');
    if (title.trim() === '') {
      setProblem('A task needs a title.');
      titleRef.current?.focus();
      return;
    }
    create.mutate();
  };

  return (
    <div className="new-task">
      {created ? (
        <Notice>
          Created task #{created.id}: <Link to={spacePath(space.slug, `/tasks/${created.id}`)}>{created.title}</Link>. It is open for anyone to
          claim.
        </Notice>
      ) : null}
      <button ref={toggleRef} type="button" aria-expanded={open} aria-controls="new-task-form" onClick={() => setOpen(!open)}>
        New task
      </button>
      <form id="new-task-form" hidden={!open} className="card new-task-form" onSubmit={submit} aria-label="New task">
        <div className="field">
          <label htmlFor="new-task-title">Title</label>
          <input id="new-task-title" ref={titleRef} type="text" maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="new-task-kind">Kind</label>
          <select id="new-task-kind" value={kind} aria-describedby="new-task-kind-hint" onChange={(e) => setKind(e.target.value as typeof kind)}>
            {CREATABLE_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
          <p id="new-task-kind-hint" className="hint">
            {KIND_HINT[kind]}
          </p>
        </div>
        <div className="field">
          <label htmlFor="new-task-body">Description</label>
          <textarea id="new-task-body" maxLength={20000} value={body} aria-describedby="new-task-body-hint" onChange={(e) => setBody(e.target.value)} />
          <p id="new-task-body-hint" className="hint">
            Markdown. Optional.
          </p>
        </div>
        <ErrorMessage>{problem || (create.isError ? errorText(create.error, NEW_TASK_WORDS) : '')}</ErrorMessage>
        <div className="actions">
          <button type="submit" aria-disabled={create.isPending}>
            Create task
          </button>
          <button type="button" className="secondary" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
