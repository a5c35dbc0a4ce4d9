import { useInfiniteQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import { rootKeys } from '../api/keys';
import type { SearchFilters } from './address';

// The results of one search, a page at a time (`cursor` is the page before's
// `next_cursor`). Keyed by everything the server is asked, so each search has
// its own entry and Back shows the results already read.

export const searchKeys = {
  all: rootKeys.search,
  results: (filters: SearchFilters) => [...rootKeys.search, 'results', filters.q, filters.space, filters.kind, filters.sort] as const,
};

export function useSearchResults(filters: SearchFilters) {
  return useInfiniteQuery({
    queryKey: searchKeys.results(filters),
    // Nothing asked is not asked: the server would refuse an empty `q`.
    enabled: filters.q.trim() !== '',
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      call(
        client.GET('/v0/search', {
          params: {
            query: {
              q: filters.q,
              ...(filters.space !== null ? { space: filters.space } : {}),
              ...(filters.kind !== null ? { kind: filters.kind } : {}),
              ...(filters.sort !== 'relevance' ? { sort: filters.sort } : {}),
              ...(pageParam !== undefined ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}
