/**
 * Writes docs/who-may-do-what.md from the operation declarations: every
 * operation's audience (`who`), the credentials it takes, and what an OAuth
 * grant may do with it. test/role-matrix.test.ts fails while the file differs
 * from the declarations, and holds the service to the same table.
 * Run: `npm run generate:audiences`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { namesSpace, onlyReads } from '../src/oauth/narrowing.js';
import { AUDIENCES } from '../src/operations/audiences.js';
import { allOperations } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';

export const AUDIENCES_DOC_PATH = fileURLToPath(new URL('../docs/who-may-do-what.md', import.meta.url));

const SCHEME_NAMES = { member_key: 'member key', session: 'session', steward_key: 'steward key' } as const;

function credentials(op: AnyOperation): string {
  if (op.auth.schemes.length === 0) return 'none read';
  const names = op.auth.schemes.map((s) => SCHEME_NAMES[s]).join(', ');
  return op.auth.anonymous ? `none, or ${names}` : names;
}

/** What an OAuth access token may do here: its grant's scope, then its Spaces. */
function oauth(op: AnyOperation): string {
  if (op.auth.schemes.length === 0) return 'not read';
  if (op.createsCredential) return 'refused: creates a credential';
  if (!op.auth.schemes.includes('member_key')) return op.auth.anonymous ? 'answered as anyone' : 'refused: session only';
  const scope = onlyReads(op) ? '`read`' : '`write`';
  let narrowed: string;
  if (namesSpace(op)) narrowed = onlyReads(op) && op.auth.anonymous ? 'other Spaces: what is public' : 'other Spaces: refused';
  else if (!onlyReads(op)) narrowed = 'narrowed: refused';
  else if (op.beyondSpaces === 'public') narrowed = 'narrowed: what is public';
  else if (op.beyondSpaces === 'filtered') narrowed = 'narrowed: its Spaces only';
  else if (op.beyondSpaces === 'own') narrowed = 'narrowed: its own records';
  else narrowed = 'narrowed: refused';
  return `${scope}; ${narrowed}`;
}

export function audiencesDocument(): string {
  const operations = allOperations(() => ({}));
  const rows = operations.map((op) => `| \`${op.name}\` | \`${op.method} ${op.path}\` | ${op.who} | ${credentials(op)} | ${oauth(op)} |`);
  const audiences = Object.entries(AUDIENCES).map(([name, meaning]) => `- **${name}**: ${meaning}`);
  return `<!-- Generated from the operation declarations by \`npm run generate:audiences\`. Do not edit. -->

# Who may do what

Every operation declares, once, who may call it and succeed. The HTTP edge and the MCP
endpoint apply the credential rules; each capability's service applies the role to the
data (an admission, an assignment, an authorship). The role matrix test calls every
operation as every kind of caller, over REST and MCP, and expects exactly what this page
says: success, or one refusal code from docs/errors.md. Where an operation's rule is
finer than its audience (only the author edits a message), the matrix names the
exception and why. The contract carries each operation's audience too, as
\`x-atrium-audience\`.

## Audiences

${audiences.join('\n')}

A suspended member and a pending agent are refused everything but the public
(\`member_suspended\`, \`member_pending\`). An agent never holds its operator's roles.

## OAuth tokens

An OAuth access token is its acting member's credential, narrowed by its grant
(docs/oauth.md):

- a \`read\` grant calls only operations that read (403 \`grant_read_only\`);
- no token creates or approves a credential (403 \`session_required\`), so revoking a
  grant leaves nothing of it behind;
- a grant narrowed to some Spaces reads only what is public in any other Space, writes
  nothing there, holds no host-wide role, and is refused (403 \`grant_space_excluded\`)
  every read across Spaces whose answer the operation does not keep inside its Spaces.

## Every operation

| Operation | Request | Who | Credentials | OAuth token |
|---|---|---|---|---|
${rows.join('\n')}
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(AUDIENCES_DOC_PATH, audiencesDocument());
  console.log(`wrote ${AUDIENCES_DOC_PATH}`);
}
