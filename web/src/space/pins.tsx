import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function PinsPage() {
  useTitle('PinsPage');
  return <PageHeading>PinsPage</PageHeading>;
}

