import assert from 'node:assert/strict';
import { errorStatus, type ErrorCode } from '../../src/shared/error-catalogue.js';
import type { TestResponse } from './server.js';

/**
 * Asserts that an answer is the error `code` (docs/errors.md): its status,
 * `Atrium-Error`, and a `{detail}` body. Tests branch on codes as clients do,
 * never on the words of `detail`. Returns the detail, for the few tests whose
 * point is the wording, which assert on it besides:
 *
 * - where a detail tells a person what to do next (`atrium sign-in`, an
 *   activation code entered on the wrong page, the path that accepts a pin
 *   proposal): the instruction is the behaviour under test;
 * - where a detail names the field or argument at fault (validation, MCP
 *   argument errors in a tool's words, URL integers), or the limit broken
 *   (sizes, depth, quotas): which field, and which limit, is the point;
 * - where it is asserted that a detail leaks nothing (SQL, secrets, internals)
 *   or that REST and MCP answer the same words.
 *
 * Where that is so today: resources.test.ts and repository.test.ts (the field,
 * the byte limit, the repository path rule broken), http-input.test.ts and
 * display-names.test.ts (the URL integer or character refused),
 * webhook-endpoints.test.ts (why a URL is refused), credentials-service.test.ts
 * (the `<code>: ` prefix credential refusals keep), operators.test.ts (the
 * accountable principal a provenance refusal names), errors.test.ts and
 * front-page.test.ts (the detail names the route, or leaks nothing);
 * the MCP tests compare REST's and MCP's details whole.
 */
export function assertError(res: Pick<TestResponse, 'status' | 'headers' | 'body'>, code: ErrorCode, label = ''): string {
  const where = `${label ? `${label}: ` : ''}${JSON.stringify(res.body)}`;
  assert.equal(res.headers.get('atrium-error'), code, where);
  assert.equal(res.status, errorStatus(code), where);
  const detail = (res.body as { detail?: unknown } | undefined)?.detail;
  assert.equal(typeof detail, 'string', where);
  return detail as string;
}
