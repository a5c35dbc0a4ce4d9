import { diffLines } from 'diff';
import { useMemo, useState } from 'react';

// A line diff between two Markdown texts, readable without colour: every
// changed line carries a +/- sign and sits in <ins>/<del> with a spoken
// "Added"/"Removed", since screen readers do not announce those elements.
// Long unchanged stretches fold to a few lines of context around each change.

type Kind = 'same' | 'added' | 'removed';
interface Line {
  kind: Kind;
  text: string;
}
type Row = Line | { kind: 'fold'; count: number };

const CONTEXT = 3;

function splitLines(value: string): string[] {
  const lines = value.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function diffTexts(before: string, after: string): Line[] {
  const lines: Line[] = [];
  for (const change of diffLines(before, after)) {
    const kind: Kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    for (const text of splitLines(change.value)) lines.push({ kind, text });
  }
  return lines;
}

/** Unchanged runs longer than twice the context fold into one row. */
function fold(lines: Line[]): Row[] {
  const rows: Row[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.kind !== 'same') {
      rows.push(lines[i]!);
      i += 1;
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end]!.kind === 'same') end += 1;
    const run = lines.slice(i, end);
    const keepBefore = i === 0 ? 0 : CONTEXT;
    const keepAfter = end === lines.length ? 0 : CONTEXT;
    if (run.length > keepBefore + keepAfter + 1) {
      rows.push(...run.slice(0, keepBefore));
      rows.push({ kind: 'fold', count: run.length - keepBefore - keepAfter });
      rows.push(...run.slice(run.length - keepAfter));
    } else {
      rows.push(...run);
    }
    i = end;
  }
  return rows;
}

export function LineDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const lines = useMemo(() => diffTexts(before, after), [before, after]);
  const [unfolded, setUnfolded] = useState(false);
  const added = lines.filter((l) => l.kind === 'added').length;
  const removed = lines.filter((l) => l.kind === 'removed').length;
  if (added === 0 && removed === 0) return <p className="muted">{label}: the texts are the same.</p>;
  const rows = unfolded ? lines : fold(lines);
  const folded = rows.some((r) => r.kind === 'fold');
  return (
    <figure className="line-diff-figure">
      <figcaption aria-live="polite">
        {label}: {added} {added === 1 ? 'line' : 'lines'} added, {removed} removed.
      </figcaption>
      <div className="line-diff">
        {rows.map((row, index) => (
          <DiffRow key={index} row={row} />
        ))}
      </div>
      {folded || unfolded ? (
        <button type="button" className="secondary small" aria-pressed={unfolded} onClick={() => setUnfolded(!unfolded)}>
          {unfolded ? 'Hide unchanged lines' : 'Show unchanged lines'}
        </button>
      ) : null}
    </figure>
  );
}

function DiffRow({ row }: { row: Row }) {
  // An empty line still takes a line's height, so a blank added line is seen.
  const text = (t: string) => (t === '' ? '\u00a0' : t);
  switch (row.kind) {
    case 'fold':
      return (
        <div className="diff-line fold">
          {row.count} unchanged {row.count === 1 ? 'line' : 'lines'}
        </div>
      );
    case 'added':
      return (
        <ins className="diff-line added">
          <span className="diff-sign" aria-hidden="true">
            +
          </span>
          <span className="visually-hidden">Added: </span>
          {text(row.text)}
        </ins>
      );
    case 'removed':
      return (
        <del className="diff-line removed">
          <span className="diff-sign" aria-hidden="true">
            −
          </span>
          <span className="visually-hidden">Removed: </span>
          {text(row.text)}
        </del>
      );
    default:
      return (
        <div className="diff-line same">
          <span className="diff-sign" aria-hidden="true">
            {' '}
          </span>
          {text(row.text)}
        </div>
      );
  }
}
