// A second reporter for the test run (scripts/run-tests.mjs): it notes each
// file's top-level suites and their durations, one line each, in the file
// ATRIUM_TEST_TIMES names, and the runner prints the slowest files at the end,
// so whoever trims the suite's time sees where it goes without timing files
// one by one. Written as they come, synchronously: --test-force-exit ends the
// process before a reporter's own last words would be flushed.
import { appendFileSync } from 'node:fs';

export default async function* fileTimes(source) {
  const out = process.env.ATRIUM_TEST_TIMES;
  for await (const event of source) {
    if (!out || (event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    appendFileSync(out, `${JSON.stringify({ file: event.data.file, ms: event.data.details?.duration_ms ?? 0 })}\n`);
  }
  yield '';
}
