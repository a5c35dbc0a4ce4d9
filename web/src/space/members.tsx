import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function MembersPage() {
  useTitle('MembersPage');
  return <PageHeading>MembersPage</PageHeading>;
}

