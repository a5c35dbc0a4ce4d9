import { rootKeys } from '../api/keys';

export const membersKeys = {
  /** Every member record and list outside a Space (after an approval, a suspension). */
  all: rootKeys.members,
  record: (handle: string) => [...rootKeys.members, 'record', handle] as const,
  list: (state: 'pending' | 'suspended') => [...rootKeys.members, 'list', state] as const,
  /** A Space's members, with requests and invitations: under the Space's key, so its feed refreshes them. */
  ofSpace: (slug: string) => [...rootKeys.space(slug), 'members'] as const,
};
