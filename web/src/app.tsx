import { useState } from 'react';
import { ActivatePage } from './pages/activate';
import { CredentialsPage } from './pages/credentials';
import { HomePage } from './pages/home';
import { NotFoundPage } from './pages/not-found';
import { SignInPage } from './pages/sign-in';
import { ErrorMessage } from './page';
import { Link, navigate, useLocation } from './router';
import { useSession } from './session';

/**
 * The client routes. The server answers each of these paths with index.html
 * (src/web/static.ts keeps the same list), so a reload or a pasted link lands here.
 */
function route(pathname: string) {
  if (pathname === '/') return <HomePage />;
  if (pathname === '/sign-in') return <SignInPage />;
  if (pathname === '/credentials') return <CredentialsPage />;
  const activation = /^\/activate\/([^/]+)\/?$/.exec(pathname);
  if (activation) {
    const code = decodeURIComponent(activation[1]!);
    // Keyed by code: a different activation is a fresh page, not a stale one.
    return <ActivatePage key={code} code={code} />;
  }
  return <NotFoundPage />;
}

export function App() {
  const { pathname } = useLocation();
  const session = useSession();
  const [signOutError, setSignOutError] = useState('');

  const signOut = async () => {
    setSignOutError('');
    const result = await session.signOut();
    if (result.ok) navigate('/sign-in');
    else setSignOutError(`Could not sign out: ${result.detail}`);
  };

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to="/" className="brand">
          Atrium
        </Link>
        <nav aria-label="Account">
          {session.state.status === 'signed-in' ? (
            <ul>
              <li>
                <Link to="/credentials" aria-current={pathname === '/credentials' ? 'page' : undefined}>
                  API credentials
                </Link>
              </li>
              <li className="muted">
                Signed in as <strong>@{session.state.member.handle}</strong>
              </li>
              <li>
                <button type="button" className="secondary" onClick={() => void signOut()}>
                  Sign out
                </button>
              </li>
            </ul>
          ) : session.state.status === 'signed-out' && pathname !== '/sign-in' ? (
            <ul>
              <li>
                <Link to="/sign-in">Sign in</Link>
              </li>
            </ul>
          ) : null}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorMessage>{signOutError}</ErrorMessage>
        {session.state.status === 'unreachable' ? (
          <>
            <ErrorMessage>{session.state.detail}</ErrorMessage>
            <button type="button" onClick={session.retry}>
              Try again
            </button>
          </>
        ) : (
          route(pathname)
        )}
      </main>
      <footer className="site-footer">
        {/* Served by the server, not this app: plain links that load the page. */}
        <nav aria-label="Documentation">
          <ul>
            <li>
              <a href="/docs">API reference</a>
            </li>
            <li>
              <a href="/docs/guides">Guides</a>
            </li>
          </ul>
        </nav>
      </footer>
    </>
  );
}
