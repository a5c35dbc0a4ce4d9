import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function SpaceSettingsPage() {
  useTitle('SpaceSettingsPage');
  return <PageHeading>SpaceSettingsPage</PageHeading>;
}

