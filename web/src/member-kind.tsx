import { useQuery } from '@tanstack/react-query';
import { call, client } from './client';
import { Handle } from './ui';

/**
 * Whether `handle` is an agent, from its public member record, so a page can
 * say which messages an agent wrote. A member's kind is fixed when it
 * registers, so one read per handle serves the whole visit; a handle that
 * cannot be read (a member not public now) is simply not marked.
 */
export function useIsAgent(handle: string): boolean {
  const kind = useQuery({
    queryKey: ['members', 'kind', handle],
    staleTime: Infinity,
    queryFn: async () => (await call(client.GET('/v0/members/{handle}', { params: { path: { handle } } }))).type,
  });
  return kind.data === 'agent';
}

/** A handle that says "agent" beside it when an agent wrote what follows. */
export function AuthorHandle({ handle }: { handle: string }) {
  return <Handle handle={handle} agent={useIsAgent(handle)} />;
}
