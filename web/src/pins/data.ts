import { useQuery } from '@tanstack/react-query';
import { call, client, type Schemas } from '../api/client';
import { rootKeys } from '../api/keys';
import { resourcesKeys } from '../resources/queries';

// The pins page's reads. The pins themselves are the front page's
// (spaceKeys.frontPage); proposals and the Resources to choose from sit under
// the Space's key, so its feed refreshes them.

export type PinProposal = Schemas['PinProposal'];

/** How many pins the front page shows (the server refuses more). */
export const MAX_PINS = 5;

export const pinsKeys = {
  proposals: (slug: string) => [...rootKeys.space(slug), 'pin-proposals'] as const,
};

export function useProposals(slug: string) {
  return useQuery({
    queryKey: pinsKeys.proposals(slug),
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/pin-proposals', { params: { path: { slug }, query: { limit: 100 } } }))).pin_proposals,
  });
}

/** The Space's Resources by id, for naming proposals and offering what may be proposed. */
export function useResources(slug: string) {
  return useQuery({
    queryKey: resourcesKeys.forPins(slug),
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/resources', { params: { path: { slug }, query: { limit: 500 } } }))).resources,
  });
}
