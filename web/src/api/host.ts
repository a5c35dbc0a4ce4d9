import { useQuery } from '@tanstack/react-query';
import { call, client } from './client';
import { rootKeys } from './keys';

/**
 * What this host offers beyond what every host does (`GET /v0`, `features`),
 * so the app offers only what works here. It cannot change while the host
 * runs: read once per page load.
 */
export function useHostFeatures() {
  return useQuery({
    queryKey: [...rootKeys.host, 'features'],
    staleTime: Infinity,
    queryFn: async () => (await call(client.GET('/v0'))).features,
  });
}
