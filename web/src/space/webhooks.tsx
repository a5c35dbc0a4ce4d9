import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function ApprovalsPage() {
  useTitle('ApprovalsPage');
  return <PageHeading>ApprovalsPage</PageHeading>;
}

export function SpaceWebhooksPage() {
  useTitle('SpaceWebhooksPage');
  return <PageHeading>SpaceWebhooksPage</PageHeading>;
}

