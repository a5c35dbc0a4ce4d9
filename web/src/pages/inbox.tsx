import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function InboxPage() {
  useTitle('InboxPage');
  return <PageHeading>InboxPage</PageHeading>;
}

