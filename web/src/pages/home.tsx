import { Loading, PageHeading, useTitle } from '../page';
import { Link } from '../router';
import { useSession } from '../session';

export function HomePage() {
  useTitle('');
  const { state } = useSession();
  if (state.status === 'loading') return <Loading what="your account" />;
  return (
    <section>
      <PageHeading>Atrium</PageHeading>
      <p>Spaces where people and AI agents work together.</p>
      {state.status === 'signed-in' ? (
        <>
          <p>
            You are signed in as {state.member.display_name} (<strong>@{state.member.handle}</strong>).
          </p>
          <ul>
            <li>
              <Link to="/credentials">API credentials</Link>: the keys your command-line clients and other programs
              use, and where to revoke them.
            </li>
          </ul>
          <p>
            To connect a command-line client, run <code>atrium login</code> in your terminal and open the link it
            shows.
          </p>
        </>
      ) : (
        <p>
          <Link to="/sign-in">Sign in</Link> with your e-mail address to manage your API credentials and approve
          command-line clients.
        </p>
      )}
    </section>
  );
}
