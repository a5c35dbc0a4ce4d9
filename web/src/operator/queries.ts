import { useQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import type { operations } from '../../../src/client/openapi';

export type OperatorStatus = operations['get_operator_status']['responses'][200]['content']['application/json'];
export type NodeSample = OperatorStatus['samples'][number];

/** Nodes sample themselves every ten seconds: the page asks again as often, so it stays live. */
export const REFRESH_MS = 10_000;

export function useOperatorStatus(enabled: boolean) {
  return useQuery({
    queryKey: ['operator', 'status'],
    enabled,
    refetchInterval: REFRESH_MS,
    queryFn: async () => call(client.GET('/v0/operator/status')),
  });
}
