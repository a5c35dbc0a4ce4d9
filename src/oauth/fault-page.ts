import type { AuthorizationFault } from './errors.js';

/**
 * What a person is shown when the authorization endpoint refuses a request it
 * cannot send back to the client (docs/oauth.md, "The authorization
 * endpoint"). They arrived in a browser, sent by a program, and JSON would
 * tell them nothing: the page says in plain words what went wrong and what
 * they can do; the OAuth error stays below it for whoever reports the fault.
 */
export interface FaultPage {
  title: string;
  paragraphs: string[];
}

export function faultPage(fault: AuthorizationFault | undefined, hostName: string): FaultPage {
  switch (fault?.kind) {
    case 'no_client':
      return {
        title: 'The program did not say who it is',
        paragraphs: [
          `The program that sent you here did not name itself, so ${hostName} cannot ask you whether to let it in.`,
          'Nothing was allowed. Start again from the program; if this happens again, tell its makers.',
        ],
      };
    case 'unknown_client':
      return {
        title: 'This program is not known here',
        paragraphs: [
          `The program that sent you here named itself with a registration ${hostName} does not hold: it may never have registered here, or it registered long ago and has not been used for 30 days.`,
          'Nothing was allowed. Start again from the program: most programs register again by themselves when they connect anew (for some, that means removing this host from their settings and adding it again).',
        ],
      };
    case 'document_unreachable':
      return {
        title: "The program's details could not be fetched",
        paragraphs: [
          `The program that sent you here identifies itself by a document on ${fault.host}, and ${hostName} could not fetch it from there. This host may not be allowed to reach ${fault.host}, or that site may be down.`,
          `Nothing was allowed. The program may be able to register with ${hostName} directly instead (dynamic client registration); see its settings or documentation. Or ask whoever runs ${hostName} whether it may reach ${fault.host}.`,
        ],
      };
    case 'document_unusable':
      return {
        title: "The program's details could not be used",
        paragraphs: [
          `The program that sent you here identifies itself by a document on ${fault.host}. ${hostName} fetched it, but it is not a usable description of the program (the details are below).`,
          'Nothing was allowed. Tell the program\'s makers; the program may be able to register with this host directly instead.',
        ],
      };
    case 'no_redirect_uri':
    case 'redirect_uri_mismatch':
      return {
        title: 'The program asked to be answered at an address it does not own',
        paragraphs: [
          `The program asked ${hostName} to send you back to an address it did not register. ${hostName} only sends people back to addresses a program registered, so that nobody can be sent somewhere a program does not control.`,
          'Nothing was allowed. Start again from the program; if this happens again, tell its makers.',
        ],
      };
    default:
      return {
        title: 'This request to connect a program could not be used',
        paragraphs: [`The program that sent you here asked ${hostName} something it cannot answer (the details are below).`, 'Nothing was allowed. Start again from the program.'],
      };
  }
}

/** The page for too many authorizations started from one address. */
export function busyPage(retryAfterSeconds: number): FaultPage {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return {
    title: 'Too many requests to connect programs',
    paragraphs: [
      `Too many requests to connect programs came from your network address in the last hour. Try again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}.`,
      'Nothing was allowed.',
    ],
  };
}

/**
 * A whole page, with nothing to run and nothing loaded from anywhere: its
 * style is inline and the headers (`FAULT_PAGE_HEADERS`) allow only that.
 */
export function renderFaultPage(page: FaultPage, oauth: { error: string; error_description: string }): string {
  const paragraphs = page.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n    ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>${escapeHtml(page.title)} · Atrium</title>
  <style>
    body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #1f2328; background: #f6f7f9; }
    main { box-sizing: border-box; max-width: 40rem; margin: 3rem auto; padding: 2rem; background: #fff; border: 1px solid #d0d7de; border-radius: 8px; }
    h1 { font-size: 1.4rem; line-height: 1.3; margin: 0 0 1rem; }
    details { margin-top: 1.5rem; color: #57606a; }
    code { font-family: ui-monospace, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
    @media (max-width: 30rem) { main { margin: 0; border: 0; border-radius: 0; min-height: 100vh; padding: 1.25rem; } }
  </style>
</head>
<body>
  <main>
    <h1>${escapeHtml(page.title)}</h1>
    ${paragraphs}
    <details>
      <summary>Details for the program's makers</summary>
      <p><code>${escapeHtml(oauth.error)}</code>: ${escapeHtml(oauth.error_description)}</p>
    </details>
  </main>
</body>
</html>
`;
}

/** No script, no frames, nothing fetched: the page is its own text and inline style. */
export const FAULT_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Whether the caller asked for a page: its Accept names `text/html` at least
 * as strongly as JSON. Browsers navigating do; programs (and `*\/*`) get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const weights = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    weights.set(type!.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const html = weights.get('text/html') ?? 0;
  return html > 0 && html >= (weights.get('application/json') ?? 0);
}
