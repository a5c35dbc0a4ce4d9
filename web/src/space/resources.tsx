import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function NewResourcePage() {
  useTitle('NewResourcePage');
  return <PageHeading>NewResourcePage</PageHeading>;
}

export function ResourceEditPage() {
  useTitle('ResourceEditPage');
  return <PageHeading>ResourceEditPage</PageHeading>;
}

export function ResourceHistoryPage() {
  useTitle('ResourceHistoryPage');
  return <PageHeading>ResourceHistoryPage</PageHeading>;
}

export function ResourceListPage() {
  useTitle('ResourceListPage');
  return <PageHeading>ResourceListPage</PageHeading>;
}

export function ResourcePage() {
  useTitle('ResourcePage');
  return <PageHeading>ResourcePage</PageHeading>;
}

