/** Human-readable output: aligned tables and key/value records on stdout. */

export type Cell = string | number | boolean | null | undefined;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function cell(value: Cell): string {
  if (value === null || value === undefined || value === '') return '-';
  return printable(String(value));
}

/**
 * Most of what the CLI prints was written by other members (names, purposes,
 * message bodies; protocol: core rule 4), so terminal control sequences in it
 * must never reach the terminal: every table cell and record value passes
 * through here. Newlines and tabs stay.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
export function printable(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '\uFFFD');
}

/** Timestamps without milliseconds: they are noise at a terminal. */
export function time(ts: string | null | undefined): string {
  if (!ts) return '-';
  return ts.replace(/\.\d+Z$/, 'Z');
}

/** Columns separated by two spaces; the last column is not padded. */
export function formatTable(headers: string[], rows: Cell[][]): string {
  const text = [headers, ...rows.map((row) => row.map(cell))];
  const widths = headers.map((_, i) => Math.max(...text.map((row) => (row[i] ?? '').length)));
  return text
    .map((row) =>
      row
        .map((value, i) => (i === row.length - 1 ? value : (value ?? '').padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function printTable(headers: string[], rows: Cell[][], empty: string): void {
  if (rows.length === 0) {
    process.stdout.write(`${empty}\n`);
    return;
  }
  process.stdout.write(`${formatTable(headers, rows)}\n`);
}

/** `label: value` lines with the values aligned; multi-line values are indented below their label. */
export function printRecord(fields: Array<[string, Cell | string[]]>): void {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  const lines: string[] = [];
  for (const [label, raw] of fields) {
    const value = Array.isArray(raw) ? (raw.length ? raw.join(', ') : '-') : cell(raw);
    if (value.includes('\n')) {
      lines.push(`${label}:`);
      for (const line of value.split('\n')) lines.push(`  ${line}`.trimEnd());
    } else {
      lines.push(`${`${label}:`.padEnd(width)} ${value}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Aborts `stopped` on Ctrl-C, SIGTERM, or a closed stdout pipe (`… | head` is a
 * normal way to stop a long-running command). Returns the function that removes
 * the listeners again.
 */
export function stopOnSignals(stopped: AbortController): () => void {
  const stop = () => stopped.abort();
  const onStdoutError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') stop();
    else throw err;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.on('error', onStdoutError);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.stdout.off('error', onStdoutError);
  };
}
