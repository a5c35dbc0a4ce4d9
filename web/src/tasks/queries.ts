import { useQuery } from '@tanstack/react-query';
import { call, client } from '../client';
import type { Member } from './rules';

// Reads of the task pages. Keys sit under ['space', slug], so every event of
// the Space (a claim by an agent, a completion elsewhere) refreshes them live.

export const tasksKey = (slug: string) => ['space', slug, 'tasks'] as const;
export const taskKey = (slug: string, id: number) => ['space', slug, 'tasks', id] as const;

/** A member handle's shape (src/shared/schemas.ts). */
const HANDLE = /^(?=.{3,32}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The board holds the newest tasks: one page of the largest size the API serves. */
export const BOARD_LIMIT = 500;

export function useTaskList(slug: string) {
  return useQuery({
    queryKey: [...tasksKey(slug), 'list'],
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/tasks', { params: { path: { slug }, query: { limit: BOARD_LIMIT } } }))).tasks,
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
