import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { call, client, type Schemas } from '../api/client';
import { rootKeys } from '../api/keys';
import { useStanding } from '../api/standing';
import { useSpace } from '../spaces/space';

// Reads of a Space's Resources, cached under the Space's key so the Space feed
// refreshes them when a `resource_created` or `resource_version_added` commits.

export type Resource = Schemas['Resource'];
export type ResourceDocument = Schemas['ResourceDocument'];
export type ResourceVersion = Schemas['ResourceVersion'];
export type ResourceVersionDocument = Schemas['ResourceVersionDocument'];

const PAGE = 100;

const all = (slug: string) => [...rootKeys.space(slug), 'resources'] as const;
const resource = (slug: string, id: string) => [...all(slug), id] as const;

export const resourcesKeys = {
  all,
  list: (slug: string) => [...all(slug), 'list'] as const,
  /** The Resources a pin may point at (the pins page's choice). */
  forPins: (slug: string) => [...all(slug), 'for-pins'] as const,
  resource,
  current: (slug: string, id: string) => [...resource(slug, id), 'current'] as const,
  versions: (slug: string, id: string) => [...resource(slug, id), 'versions'] as const,
  version: (slug: string, id: string, version: number | undefined) => [...resource(slug, id), 'version', version] as const,
};

export function useResourceList(slug: string) {
  return useInfiniteQuery({
    queryKey: resourcesKeys.list(slug),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      call(client.GET('/v0/spaces/{slug}/resources', { params: { path: { slug }, query: { limit: PAGE, ...(pageParam ? { before: pageParam } : {}) } } })),
    getNextPageParam: (last) => (last.resources.length === PAGE ? last.resources[last.resources.length - 1]?.id : undefined),
  });
}

/** `fresh`: read it again on mount even if the cache holds a recent copy (an editor's starting point). */
export function useResource(slug: string, id: string, opts: { fresh?: boolean } = {}) {
  return useQuery({
    queryKey: resourcesKeys.current(slug, id),
    ...(opts.fresh ? { refetchOnMount: 'always' as const } : {}),
    queryFn: () => call(client.GET('/v0/spaces/{slug}/resources/{id}', { params: { path: { slug, id } } })),
  });
}

export function useVersionList(slug: string, id: string) {
  return useInfiniteQuery({
    queryKey: resourcesKeys.versions(slug, id),
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/v0/spaces/{slug}/resources/{id}/versions', {
          params: { path: { slug, id }, query: { limit: PAGE, ...(pageParam ? { before: pageParam } : {}) } },
        }),
      ),
    // Versions are numbered 1, 2, …: the page that reaches version 1 is the last.
    getNextPageParam: (last) => {
      const oldest = last.versions[last.versions.length - 1]?.version;
      return oldest !== undefined && oldest > 1 ? oldest : undefined;
    },
  });
}

/** One version with its text. Versions are immutable, so once read it never goes stale. */
export function useVersion(slug: string, id: string, version: number | undefined) {
  return useQuery({
    queryKey: resourcesKeys.version(slug, id, version),
    enabled: version !== undefined,
    staleTime: Infinity,
    queryFn: () =>
      call(client.GET('/v0/spaces/{slug}/resources/{id}/versions/{version}', { params: { path: { slug, id, version: version! } } })),
  });
}

/**
 * May the signed-in member add Resources and versions here? The Space action
 * gate (docs/protocol.md#space-admission): admitted members, every member of an
 * open Space who was not removed from it, and its Owners/Hosts; and only while
 * the Space is `active`.
 */
export function useMayWrite(slug: string): { mayWrite: boolean; why: string } {
  const space = useSpace(slug);
  const standing = useStanding(slug);
  if (!space.data) return { mayWrite: false, why: '' };
  if (space.data.status !== 'active') return { mayWrite: false, why: `This Space is ${space.data.status}: its Resources cannot change now.` };
  if (standing.me === null) return { mayWrite: false, why: 'Sign in to write Resources in this Space.' };
  const admitted =
    standing.membership === 'admitted' || (space.data.join_policy === 'open' && standing.membership !== 'removed') || standing.ownerOrHost;
  if (!admitted) {
    return {
      mayWrite: false,
      why: standing.membership === 'removed' ? 'You were removed from this Space.' : 'Only admitted members write Resources in this Space.',
    };
  }
  return { mayWrite: true, why: '' };
}
