import { PageHeading, useTitle } from './page';
import { Link } from './router';

export function NotFoundPage() {
  useTitle('Page not found');
  return (
    <section>
      <PageHeading>Page not found</PageHeading>
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Go to the start page</Link>
      </p>
    </section>
  );
}
