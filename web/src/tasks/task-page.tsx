import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useParams } from 'wouter';
import { ApiError, call, client, errorText, type Space } from '../api/client';
import { RenderedMarkdown } from '../app/markdown';
import { ErrorMessage, PageHeading, useTitle } from '../app/page';
import { NotFoundPage } from '../app/not-found';
import { Link, useLocation } from '../app/router';
import { linkedMessage } from '../conversations/data';
import { spacePath, useSpace } from '../spaces/space';
import { useStanding } from '../api/standing';
import { ConfirmDialog, Handle, Loaded, Notice, Time } from '../app/ui';
import { TaskDiscussion } from './discussion';
import { tasksKeys, useMemberWithOperator, useTask } from './queries';
import {
  allowedMoves,
  ASSURANCE_TEXT,
  mayActOnTasks,
  principalOf,
  STATUS_LABEL,
  whoMayComplete,
  type Member,
  type Standing,
  type Task,
  type TaskMove,
} from './rules';
import './tasks.css';

// One task: what it asks, where it stands, the moves this reader may make,
// the provenance of its completion exactly as recorded, and its discussion.

export function TaskPage() {
  const { slug, id } = useParams<{ slug: string; id: string }>();
  const taskId = /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : null;
  if (taskId === null) return <NotFoundPage />;
  // Keyed by id: another task is a fresh page (its own heading focus, no stale messages).
  return <TaskView key={`${slug}/${taskId}`} slug={slug} id={taskId} />;
}

function TaskView({ slug, id }: { slug: string; id: number }) {
  const space = useSpace(slug);
  const standing = useStanding(slug);
  const task = useTask(slug, id);
  useTitle(task.data ? `${task.data.title} · Task #${id}` : `Task #${id}`);

  if (task.isError && task.error instanceof ApiError && task.error.status === 404) {
    return (
      <section>
        <PageHeading>No such task</PageHeading>
        <p>Space {slug} has no task #{id}.</p>
        <p>
          <Link to={spacePath(slug, '/tasks')}>All tasks</Link>
        </p>
      </section>
    );
  }
  return (
    <Loaded query={task} what="the task">
      {(t) => (space.data ? <TaskDetail space={space.data} task={t} standing={standing} /> : null)}
    </Loaded>
  );
}

function TaskDetail({ space, task, standing }: { space: Space; task: Task; standing: Standing }) {
  const { search } = useLocation();
  const worker = useMemberWithOperator(space.slug, task.status === 'submitted' ? task.claimant : null);
  const reader = useMemberWithOperator(space.slug, task.status === 'submitted' ? (standing.me?.handle ?? null) : null);
  const principals = {
    worker: worker.member ? principalOf(worker.member, worker.operator) : null,
    reader: reader.member ? principalOf(reader.member, reader.operator) : null,
    known: worker.settled && reader.settled,
  };
  const moves = allowedMoves(task, space, standing, principals);

  return (
    <article className="task-page">
      <p className="breadcrumb">
        <Link to={spacePath(space.slug, '/tasks')}>Tasks</Link> <span aria-hidden="true">›</span> #{task.id}
      </p>
      <PageHeading>{task.title}</PageHeading>
      <dl className="facts task-facts">
        <dt>State</dt>
        <dd>
          <span className={`task-status task-status-${task.status}`}>{STATUS_LABEL[task.status]}</span>
        </dd>
        <dt>Kind</dt>
        <dd>{task.kind.replace('_', ' ')}</dd>
        {task.claimant ? (
          <>
            <dt>{task.status === 'submitted' ? 'Submitted by' : 'Claimed by'}</dt>
            <dd>
              <Handle handle={task.claimant} agent={worker.member?.type === 'agent'} />
            </dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          by <Handle handle={task.created_by} />, <Time iso={task.created_ts} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time iso={task.updated_ts} />
        </dd>
      </dl>
      {task.kind === 'pin_proposal' ? (
        <p className="notice">
          This task is a pin proposal: it is accepted or declined on the <Link to={spacePath(space.slug, '/pins')}>Pins</Link> page.
        </p>
      ) : null}
      <TaskActions space={space} task={task} moves={moves} standing={standing} workerPrincipal={principals.worker} workerKnown={principals.known} />
      {task.completion ? <Provenance slug={space.slug} completion={task.completion} /> : null}
      <section aria-labelledby="task-description" className="task-description">
        <h2 id="task-description">Description</h2>
        {task.body.trim() === '' ? <p className="muted">No description.</p> : <RenderedMarkdown source={task.body} />}
      </section>
      <TaskDiscussion space={space} task={task} mayPost={mayActOnTasks(space, standing)} target={linkedMessage(search)} />
    </article>
  );
}

const MOVE_LABEL: Record<TaskMove, string> = {
  claim: 'Claim',
  release: 'Release',
  submit: 'Submit',
  complete: 'Complete',
  reopen: 'Reopen',
  cancel: 'Cancel task',
};

const MOVE_DONE: Record<TaskMove, string> = {
  claim: 'You claimed this task. Submit it when the work is done.',
  release: 'Released: the task is open again for anyone to claim.',
  submit: 'Submitted: another member can now complete it.',
  complete: 'Completed. The provenance below records who did what.',
  reopen: 'Reopened: the task is open again.',
  cancel: 'Cancelled.',
};

/** Where a task stands: every move changes its status, claimant or update time. */
const taskState = (task: Task) => `${task.status} ${task.claimant ?? ''} ${task.updated_ts}`;

const ORDER: TaskMove[] = ['claim', 'submit', 'complete', 'release', 'reopen', 'cancel'];

function TaskActions({
  space,
  task,
  moves,
  standing,
  workerPrincipal,
  workerKnown,
}: {
  space: Space;
  task: Task;
  moves: Set<TaskMove>;
  standing: Standing;
  workerPrincipal: string | null;
  workerKnown: boolean;
}) {
  const queries = useQueryClient();
  // What this reader's last move did, and the task as that move left it: once the task has
  // moved on (another member completed it, live), the sentence would describe a past state.
  const [done, setDone] = useState<{ text: string; left: string } | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const cancelButton = useRef<HTMLButtonElement>(null);

  const move = async (which: TaskMove) => {
    const params = { params: { path: { slug: space.slug, id: task.id } } };
    const paths = {
      claim: '/v0/spaces/{slug}/tasks/{id}/claim',
      release: '/v0/spaces/{slug}/tasks/{id}/release',
      submit: '/v0/spaces/{slug}/tasks/{id}/submit',
      complete: '/v0/spaces/{slug}/tasks/{id}/complete',
      reopen: '/v0/spaces/{slug}/tasks/{id}/reopen',
      cancel: '/v0/spaces/{slug}/tasks/{id}/cancel',
    } as const;
    const moved = await call(client.POST(paths[which], params));
    // The answer is the task as the move left it: show it at once, before the list refetches.
    queries.setQueryData(tasksKeys.task(space.slug, task.id), moved);
    setDone({ text: MOVE_DONE[which], left: taskState(moved) });
  };

  const moving = useMutation({
    mutationFn: move,
    // Whatever happened, show the task as it is now (a refusal usually means someone moved first).
    onSettled: () => void queries.invalidateQueries({ queryKey: tasksKeys.all(space.slug) }),
  });
  const busy = moving.isPending ? moving.variables : null;
  const run = (which: TaskMove) => {
    if (busy) return;
    setDone(null);
    moving.mutate(which);
  };

  const me = standing.me?.handle;
  const visible = ORDER.filter((m) => moves.has(m));
  const cannotComplete =
    task.status === 'submitted' && me !== undefined && !moves.has('complete') && workerKnown && mayActOnTasks(space, standing) && task.kind !== 'pin_proposal';

  return (
    <section aria-labelledby="task-actions" className="task-actions">
      <h2 id="task-actions" className="visually-hidden">
        What you can do
      </h2>
      {done && done.left === taskState(task) ? <Notice>{done.text}</Notice> : null}
      <ErrorMessage>{moving.isError ? errorText(moving.error) : ''}</ErrorMessage>
      {visible.length > 0 ? (
        <div className="actions">
          {visible.map((m) =>
            m === 'cancel' ? (
              <button key={m} ref={cancelButton} type="button" className="danger secondary" onClick={() => setConfirmCancel(true)}>
                {MOVE_LABEL[m]}
              </button>
            ) : (
              <button key={m} type="button" className={m === 'release' || m === 'reopen' ? 'secondary' : undefined} aria-disabled={busy !== null} onClick={() => run(m)}>
                {busy === m ? `${MOVE_LABEL[m]}…` : MOVE_LABEL[m]}
              </button>
            ),
          )}
        </div>
      ) : null}
      {cannotComplete ? (
        <p className="hint task-why">
          {task.claimant === me
            ? 'You did this work, so you cannot complete it yourself. '
            : `You cannot complete work by @${task.claimant}${workerPrincipal && workerPrincipal !== task.claimant ? ` (accountable principal @${workerPrincipal})` : ''}. `}
          {whoMayComplete(task, space)}
        </p>
      ) : null}
      {confirmCancel ? (
        <ConfirmDialog
          title={`Cancel task #${task.id}?`}
          confirmLabel="Cancel task"
          danger
          onCancel={() => {
            setConfirmCancel(false);
            cancelButton.current?.focus();
          }}
          onConfirm={async () => {
            await move('cancel');
            setConfirmCancel(false);
            await queries.invalidateQueries({ queryKey: tasksKeys.all(space.slug) });
          }}
        >
          <p>
            The task stops{task.claimant ? `, and @${task.claimant}'s claim ends` : ''}. You or an Owner/Host can reopen it later.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

type Completion = NonNullable<Task['completion']>;

/** The completion exactly as recorded: the assurance that held, never more than that. */
function Provenance({ slug, completion }: { slug: string; completion: Completion }) {
  const worker = useMemberWithOperator(slug, completion.worker);
  const completer = useMemberWithOperator(slug, completion.completer);
  const held = ASSURANCE_TEXT[completion.assurance];
  return (
    <section aria-labelledby="task-provenance" className={`card provenance provenance-${completion.assurance}`}>
      <h2 id="task-provenance">Completion</h2>
      <dl className="facts">
        <dt>Work by</dt>
        <dd>
          <PersonWithPrincipal handle={completion.worker} principal={completion.worker_principal} member={worker.member} />
        </dd>
        <dt>Completed by</dt>
        <dd>
          <PersonWithPrincipal handle={completion.completer} principal={completion.completer_principal} member={completer.member} />
        </dd>
        <dt>Assurance</dt>
        <dd>
          <strong>{held.label}</strong> ({completion.assurance}): {held.meaning}.
        </dd>
        <dt>Required</dt>
        <dd>{completion.required_assurance}</dd>
        <dt>Completed</dt>
        <dd>
          <Time iso={completion.completed_ts} />
        </dd>
      </dl>
    </section>
  );
}

function PersonWithPrincipal({ handle, principal, member }: { handle: string; principal: string | null; member: Member | undefined }) {
  return (
    <>
      <Handle handle={handle} agent={member?.type === 'agent'} />
      {principal === handle ? (
        <span className="muted"> (their own accountable principal)</span>
      ) : principal === null ? (
        <span className="muted"> (no accountable principal: an unconfirmed or unregistered operator)</span>
      ) : (
        <>
          {' '}
          <span className="muted">answering to</span> <Handle handle={principal} />{' '}
          <span className="muted">(operator, accountable principal)</span>
        </>
      )}
    </>
  );
}
