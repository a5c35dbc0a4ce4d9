import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import { rootKeys } from '../api/keys';
import type { Member, TaskStatus } from './rules';

// Reads of the task pages. Keys sit under the Space's, so every event of the
// Space (a claim by an agent, a completion elsewhere) refreshes them live.

const all = (slug: string) => [...rootKeys.space(slug), 'tasks'] as const;
const task = (slug: string, id: number) => [...all(slug), id] as const;

export const tasksKeys = {
  all,
  column: (slug: string, status: TaskStatus) => [...all(slug), 'column', status] as const,
  task,
  messages: (slug: string, id: number) => [...task(slug, id), 'messages'] as const,
  /** A member record as the completion rule reads it (the assignee, their operator). */
  member: (slug: string, handle: string | null) => [...rootKeys.space(slug), 'member', handle] as const,
};

/** A member handle's shape (src/shared/schemas.ts). */
const HANDLE = /^(?=.{3,32}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** How many tasks a board column reads at a time, newest first. */
export const COLUMN_PAGE = 50;

/**
 * One column of the board: the tasks in one state, newest first, a page at a
 * time (`status` and `before`). Read per state, so an old open task is never
 * pushed off the board by many newer finished ones.
 */
export function useTaskColumn(slug: string, status: TaskStatus) {
  return useInfiniteQuery({
    queryKey: tasksKeys.column(slug, status),
    initialPageParam: undefined as number | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await call(
          client.GET('/v0/spaces/{slug}/tasks', {
            params: { path: { slug }, query: { status, limit: COLUMN_PAGE, ...(pageParam !== undefined ? { before: pageParam } : {}) } },
          }),
        )
      ).tasks,
    getNextPageParam: (last) => (last.length === COLUMN_PAGE ? last[last.length - 1]!.id : undefined),
  });
}

export function useTask(slug: string, id: number) {
  return useQuery({
    queryKey: tasksKeys.task(slug, id),
    queryFn: () => call(client.GET('/v0/spaces/{slug}/tasks/{id}', { params: { path: { slug, id } } })),
  });
}

/** Discussion messages per page: the API's most. */
export const DISCUSSION_PAGE = 200;

/** A task's discussion as pages, newest first as the API lists them; each older page starts below the oldest id held. */
export function useTaskMessages(slug: string, id: number) {
  return useInfiniteQuery({
    queryKey: tasksKeys.messages(slug, id),
    initialPageParam: undefined as number | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await call(
          client.GET('/v0/spaces/{slug}/tasks/{id}/messages', {
            params: { path: { slug, id }, query: { limit: DISCUSSION_PAGE, ...(pageParam !== undefined ? { before: pageParam } : {}) } },
          }),
        )
      ).messages,
    getNextPageParam: (last) => (last.length === DISCUSSION_PAGE ? last[last.length - 1]!.id : undefined),
  });
}

/**
 * A member record (public), and that of its operator when it is an agent: the
 * completion rule needs both to know the agent's accountable principal.
 */
export function useMemberWithOperator(slug: string, handle: string | null) {
  const member = useQuery({
    queryKey: tasksKeys.member(slug, handle),
    enabled: handle !== null,
    queryFn: () => call(client.GET('/v0/members/{handle}', { params: { path: { handle: handle! } } })),
  });
  const named = member.data?.type === 'agent' && member.data.operator_confirmed ? (member.data.operator ?? null) : null;
  // A legacy free-text operator is no handle at all: it names no principal, and asking for it would be refused.
  const operatorHandle = named !== null && HANDLE.test(named) ? named : null;
  const operator = useQuery({
    queryKey: tasksKeys.member(slug, operatorHandle),
    enabled: operatorHandle !== null,
    queryFn: () => call(client.GET('/v0/members/{handle}', { params: { path: { handle: operatorHandle! } } })),
  });
  const settled = member.isSuccess && (operatorHandle === null || operator.isSuccess || operator.isError);
  return { member: member.data as Member | undefined, operator: operator.data as Member | undefined, settled, failed: member.isError };
}
