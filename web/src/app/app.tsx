import { lazy, Suspense, useState, type ComponentType } from 'react';
import { Route, Switch, useParams } from 'wouter';
import { OperatorPage } from '../operator/operator-page';
import { isHostWideOwner, useMyRoles } from '../api/standing';
import { InboxBadge } from '../inbox/badge';
import { SpaceSwitcher } from '../spaces/space-switcher';
import { InboxFeedProvider } from '../api/live';
import { ErrorMessage, Loading } from './page';
import { HomePage } from '../home/home-page';
import { NotFoundPage } from './not-found';
import { SignInPage } from '../sign-in/sign-in-page';
import { Link, navigate, useLocation } from './router';
import { useSession } from '../api/session';
import { HeaderSearch, SEARCH_PAGE, useSearchShortcut } from '../search/header-search';

/**
 * A page loaded on first visit, in its own chunk: someone signing in or
 * approving a CLI does not download the editor, the diff and the Markdown
 * renderer that a Space's pages need.
 */
function onDemand<P extends object, K extends string>(load: () => Promise<Record<K, ComponentType<P>>>, name: K) {
  return lazy(async () => ({ default: (await load())[name] }));
}

const ActivatePage = onDemand(() => import('../credentials/activate-page'), 'ActivatePage');
const AgentsPage = onDemand(() => import('../agents/agents-page'), 'AgentsPage');
const ConsentPage = onDemand(() => import('../oauth/consent-page'), 'ConsentPage');
const CredentialsPage = onDemand(() => import('../credentials/credentials-page'), 'CredentialsPage');
const InboxPage = onDemand(() => import('../inbox/inbox-page'), 'InboxPage');
const WebhookEndpointsPage = onDemand(() => import('../webhooks/endpoints-page'), 'WebhookEndpointsPage');
const SearchPage = onDemand(() => import('../search/search-page'), 'SearchPage');
const SpaceLayout = onDemand(() => import('../spaces/layout'), 'SpaceLayout');

/**
 * The client routes. The server answers each of these paths with index.html
 * (src/web/static.ts keeps the same list), so a reload or a pasted link lands
 * here. Everything about one Space is under /spaces/<slug>, routed by
 * web/src/spaces/layout.tsx to each feature's pages.
 */
function Routes() {
  return (
    <Suspense fallback={<Loading what="the page" />}>
      <Switch>
      <Route path="/" component={HomePage} />
      <Route path="/sign-in" component={SignInPage} />
      <Route path="/credentials" component={CredentialsPage} />
      <Route path="/inbox" component={InboxPage} />
      <Route path="/agents" component={AgentsPage} />
      <Route path="/webhooks" component={WebhookEndpointsPage} />
      <Route path="/operator" component={OperatorPage} />
      <Route path={SEARCH_PAGE} component={SearchPage} />
      <Route path="/activate/:code" component={Activation} />
      <Route path="/oauth/consent" component={Consent} />
      <Route path="/spaces/:slug" nest component={SpaceLayout} />
      <Route component={NotFoundPage} />
      </Switch>
    </Suspense>
  );
}

function Activation() {
  const { code } = useParams<{ code: string }>();
  // Keyed by code: a different activation is a fresh page, not a stale one.
  return <ActivatePage key={code} code={code} />;
}

function Consent() {
  const { search } = useLocation();
  const request = search.get('request');
  return <ConsentPage key={request ?? ''} requestId={request} />;
}

export function App() {
  const { pathname } = useLocation();
  const session = useSession();
  const [signOutError, setSignOutError] = useState('');
  const member = session.state.status === 'signed-in' ? session.state.member : null;
  const hostOwner = isHostWideOwner(useMyRoles().data);

  const signOut = async () => {
    setSignOutError('');
    const result = await session.signOut();
    if (result.ok) navigate('/sign-in');
    else setSignOutError(`Could not sign out: ${result.detail}`);
  };
  const current = (path: string) => (pathname === path ? ('page' as const) : undefined);
  useSearchShortcut();

  return (
    <InboxFeedProvider member={member?.handle ?? null}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to="/" className="brand">
          Atrium
        </Link>
        {member ? <SpaceSwitcher /> : null}
        {/* The results page has its own field, with the query in it. */}
        {pathname !== SEARCH_PAGE ? <HeaderSearch /> : null}
        <nav aria-label="Account">
          {member ? (
            <ul>
              <li>
                <Link to="/inbox" aria-current={current('/inbox')}>
                  Inbox
                  <InboxBadge />
                </Link>
              </li>
              <li>
                <Link to="/agents" aria-current={current('/agents')}>
                  Agents
                </Link>
              </li>
              <li>
                <Link to="/webhooks" aria-current={current('/webhooks')}>
                  Webhooks
                </Link>
              </li>
              <li>
                <Link to="/credentials" aria-current={current('/credentials')}>
                  API credentials
                </Link>
              </li>
              {hostOwner ? (
                <li>
                  <Link to="/operator" aria-current={current('/operator')}>
                    Operator
                  </Link>
                </li>
              ) : null}
              <li className="muted signed-in-as">
                Signed in as <strong>@{member.handle}</strong>
              </li>
              <li>
                <button type="button" className="secondary small" onClick={() => void signOut()}>
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
      <main id="main" tabIndex={-1} className={pathname.startsWith('/spaces/') ? 'wide' : undefined}>
        <ErrorMessage>{signOutError}</ErrorMessage>
        {session.state.status === 'unreachable' ? (
          <>
            <ErrorMessage>{session.state.detail}</ErrorMessage>
            <button type="button" onClick={session.retry}>
              Try again
            </button>
          </>
        ) : (
          <Routes />
        )}
      </main>
      <footer className={pathname.startsWith('/spaces/') ? 'site-footer wide' : 'site-footer'}>
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
    </InboxFeedProvider>
  );
}
