import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function AgentsPage() {
  useTitle('AgentsPage');
  return <PageHeading>AgentsPage</PageHeading>;
}

