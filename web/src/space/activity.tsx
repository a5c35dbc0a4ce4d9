import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function ActivityPage() {
  useTitle('ActivityPage');
  return <PageHeading>ActivityPage</PageHeading>;
}

