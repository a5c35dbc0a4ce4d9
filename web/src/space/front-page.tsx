import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function FrontPage() {
  useTitle('FrontPage');
  return <PageHeading>FrontPage</PageHeading>;
}

