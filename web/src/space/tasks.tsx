import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function TaskBoardPage() {
  useTitle('TaskBoardPage');
  return <PageHeading>TaskBoardPage</PageHeading>;
}

export function TaskPage() {
  useTitle('TaskPage');
  return <PageHeading>TaskPage</PageHeading>;
}

