import { useQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import { rootKeys } from '../api/keys';

// What every page inside a Space shares: its paths, its record and its keys.
// A leaf module, apart from the Space layout, so that the pages the layout
// routes to never import the layout, and pages outside Spaces (Home) can link
// into one without loading every Space page with it.

/** Paths inside a Space, so pages link to each other by name rather than by string. */
export const spacePath = (slug: string, rest = '') => `/spaces/${encodeURIComponent(slug)}${rest}`;

export const spaceKeys = {
  all: rootKeys.space,
  list: rootKeys.spaceList,
  record: (slug: string) => [...rootKeys.space(slug), 'record'] as const,
  frontPage: (slug: string) => [...rootKeys.space(slug), 'front-page'] as const,
};

/** The Space record, shared by every page inside it (invalidated by the Space feed). */
export function useSpace(slug: string) {
  return useQuery({ queryKey: spaceKeys.record(slug), queryFn: () => call(client.GET('/v0/spaces/{slug}', { params: { path: { slug } } })) });
}

export const JOIN_POLICY_LABEL = {
  open: 'Open: anyone may join',
  request: 'On request: an Owner or Host admits',
  invite: 'Invite-only',
} as const;

export const JOIN_POLICY_SHORT = { open: 'open', request: 'on request', invite: 'invite-only' } as const;
