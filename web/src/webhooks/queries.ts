import { useQuery } from '@tanstack/react-query';
import { call, client, type Schemas } from '../api/client';
import { useSession } from '../api/session';
import { rootKeys } from '../api/keys';

// Reads of the webhook pages. Endpoints and inbox subscriptions are the
// signed-in member's own (['me', …]); a Space's subscriptions sit under
// ['space', slug, …] so the Space feed refreshes them with everything else.

export type Endpoint = Schemas['WebhookEndpoint'];
export type Subscription = Schemas['WebhookSubscription'];
export type Delivery = Schemas['WebhookDelivery'];
export type Filter = Schemas['WebhookFilter'];

export const webhooksKeys = {
  endpoints: [...rootKeys.me, 'webhook-endpoints'] as const,
  inboxSubscriptions: [...rootKeys.me, 'inbox-subscriptions'] as const,
  spaceSubscriptions: (slug: string) => [...rootKeys.space(slug), 'webhook-subscriptions'] as const,
  deliveries: (subscriptionId: string) => [...rootKeys.me, 'webhook-deliveries', subscriptionId] as const,
  signingKeys: ['webhook-signing-keys'] as const,
};

export function useEndpoints() {
  const { state } = useSession();
  return useQuery({
    queryKey: webhooksKeys.endpoints,
    enabled: state.status === 'signed-in',
    queryFn: async () => (await call(client.GET('/v0/webhook-endpoints'))).endpoints,
  });
}

export function useSigningKeys() {
  return useQuery({
    queryKey: webhooksKeys.signingKeys,
    queryFn: async () => (await call(client.GET('/v0/webhook-signing-keys'))).keys,
  });
}

export function useInboxSubscriptions() {
  const { state } = useSession();
  return useQuery({
    queryKey: webhooksKeys.inboxSubscriptions,
    enabled: state.status === 'signed-in',
    queryFn: async () => (await call(client.GET('/v0/me/inbox-subscriptions'))).subscriptions,
  });
}

export function useSpaceSubscriptions(slug: string) {
  const { state } = useSession();
  return useQuery({
    queryKey: webhooksKeys.spaceSubscriptions(slug),
    enabled: state.status === 'signed-in',
    queryFn: async () => (await call(client.GET('/v0/spaces/{slug}/webhook-subscriptions', { params: { path: { slug } } }))).subscriptions,
  });
}

/**
 * Sends happen after events commit, on the host's own schedule, and make no
 * event of their own: while a history is on screen it is read again every few
 * seconds, so a delivery and each retry show up without a reload.
 */
const HISTORY_REFRESH_MS = 3000;

export function useDeliveries(subscriptionId: string) {
  return useQuery({
    queryKey: webhooksKeys.deliveries(subscriptionId),
    refetchInterval: HISTORY_REFRESH_MS,
    queryFn: async () => (await call(client.GET('/v0/webhook-subscriptions/{id}/deliveries', { params: { path: { id: subscriptionId } } }))).deliveries,
  });
}
