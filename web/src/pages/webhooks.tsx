import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function WebhookEndpointsPage() {
  useTitle('WebhookEndpointsPage');
  return <PageHeading>WebhookEndpointsPage</PageHeading>;
}

