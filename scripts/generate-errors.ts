/**
 * Writes docs/errors.md from the error catalogue (src/shared/error-catalogue.ts):
 * every code, its status and its meaning. test/error-catalogue.test.ts fails
 * while the file differs from the table. Run: `npm run generate:errors`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERROR_CATALOGUE, ERROR_CODES } from '../src/shared/error-catalogue.js';

export const ERRORS_DOC_PATH = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

export function errorsDocument(): string {
  const rows = [...ERROR_CODES]
    .sort((a, b) => ERROR_CATALOGUE[a].status - ERROR_CATALOGUE[b].status || a.localeCompare(b))
    .map((code) => `| \`${code}\` | ${ERROR_CATALOGUE[code].status} | ${ERROR_CATALOGUE[code].meaning.replaceAll('|', '\\|')} |`);
  return `<!-- Generated from src/shared/error-catalogue.ts by \`npm run generate:errors\`. Do not edit. -->

# Error codes

Every error Atrium answers has a code from this one catalogue, and each code has one HTTP
status wherever it appears. Branch on the code, never on \`detail\`: the words of a detail
may change, a code keeps its meaning.

- **REST**: the body stays exactly \`{detail}\`; the code travels in the \`Atrium-Error\`
  header of every error answer (the contract declares it, with the codes each status can
  carry). The OAuth endpoints keep their RFC 6749 bodies (\`{error, error_description}\`)
  and send \`oauth_<error>\` in the same header.
- **MCP**: a tool error's \`structuredContent\` is \`{code, detail}\` (docs/mcp.md).
- **Credential gateway**: its \`/v1\` error bodies are \`{code, detail}\`; its codes are
  members of this catalogue, and the service's credential refusals also start their
  \`detail\` with \`<code>: \`.

| Code | Status | Meaning |
|---|---|---|
${rows.join('\n')}
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(ERRORS_DOC_PATH, errorsDocument());
  console.log(`wrote ${ERRORS_DOC_PATH}`);
}
