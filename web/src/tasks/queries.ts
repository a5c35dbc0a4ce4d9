import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import type { Member, TaskStatus } from './rules';

// Reads of the task pages. Keys sit under ['space', slug], so every event of
// the Space (a claim by an agent, a completion elsewhere) refreshes them live.

export const tasksKey = (slug: string) => ['space', slug, 'tasks'] as const;
export const taskKey = (slug: string, id: number) => ['space', slug, 'tasks', id] as const;

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
    queryKey: [...tasksKey(slug), 'column', status],
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
    queryKey: taskKey(slug, id),
    queryFn: () => call(client.GET('/v0/spaces/{slug}/tasks/{id}', { params: { path: { slug, id } } })),
  });
}

export function useTaskMessages(slug: string, id: number) {
  return useQuery({
    queryKey: [...taskKey(slug, id), 'messages'],
    queryFn: async () =>
      (await call(client.GET('/v0/spaces/{slug}/tasks/{id}/messages', { params: { path: { slug, id }, query: { limit: 200 } } }))).messages,
  });
}

/**
 * A member record (public), and that of its operator when it is an agent: the
 * completion rule needs both to know the agent's accountable principal.
 */
export function useMemberWithOperator(slug: string, handle: string | null) {
  const member = useQuery({
    queryKey: ['space', slug, 'member', handle],
    enabled: handle !== null,
    queryFn: () => call(client.GET('/v0/members/{handle}', { params: { path: { handle: handle! } } })),
  });
  const named = member.data?.type === 'agent' && member.data.operator_confirmed ? (member.data.operator ?? null) : null;
  // A legacy free-text operator is no handle at all: it names no principal, and asking for it would be refused.
  const operatorHandle = named !== null && HANDLE.test(named) ? named : null;
  const operator = useQuery({
    queryKey: ['space', slug, 'member', operatorHandle],
    enabled: operatorHandle !== null,
    queryFn: () => call(client.GET('/v0/members/{handle}', { params: { path: { handle: operatorHandle! } } })),
  });
  const settled = member.isSuccess && (operatorHandle === null || operator.isSuccess || operator.isError);
  return { member: member.data as Member | undefined, operator: operator.data as Member | undefined, settled, failed: member.isError };
}
