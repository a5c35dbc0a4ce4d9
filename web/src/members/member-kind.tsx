import { useQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import { Handle } from '../app/ui';
import { membersKeys } from './keys';

/** A member's public record (`GET /v0/members/{handle}`), one cache entry per handle for every page that reads it. */
export function useMemberRecord(handle: string, opts: { staleTime?: number } = {}) {
  return useQuery({
    queryKey: membersKeys.record(handle),
    ...opts,
    queryFn: () => call(client.GET('/v0/members/{handle}', { params: { path: { handle } } })),
  });
}

/**
 * Whether `handle` is an agent, so a page can say which messages an agent
 * wrote. A member's kind is fixed when it registers, so one read per handle
 * serves the whole visit; a handle that cannot be read (a member not public
 * now) is simply not marked.
 */
export function useIsAgent(handle: string): boolean {
  return useMemberRecord(handle, { staleTime: Infinity }).data?.type === 'agent';
}

/** A handle that says "agent" beside it when an agent wrote what follows. */
export function AuthorHandle({ handle }: { handle: string }) {
  return <Handle handle={handle} agent={useIsAgent(handle)} />;
}
