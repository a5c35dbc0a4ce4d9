import { useEffect, useRef } from 'react';
import { Handle, Time } from '../app/ui';
import { LineDiff } from './diff';
import type { ResourceDocument } from './queries';

/** What the person started editing from, kept as it was however the Resource moves on. */
export interface Base {
  version: number;
  name: string;
  content: string;
}

/**
 * Someone saved a newer version while this person was editing: what they
 * changed (from the version this edit started from), their whole text to copy
 * from, and what saving now would change. The person's own text stays in the
 * editor below, untouched.
 */
export function Conflict({ base, newer, draft }: { base: Base; newer: ResourceDocument; draft: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="conflict" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading" ref={heading} tabIndex={-1}>
        Version {newer.current_version} was saved while you were editing
      </h2>
      <p>
        <Handle handle={newer.updated_by} /> saved version {newer.current_version} on <Time iso={newer.updated_ts} />. Your text is kept in the
        editor below and nothing of it was saved. Merge their changes into it, then save on top of version {newer.current_version}.
      </p>
      {newer.name !== base.name ? (
        <p>
          The Resource is now named “{newer.name}” (it was “{base.name}”).
        </p>
      ) : null}
      <h3>
        Their changes, version {base.version} to {newer.current_version}
      </h3>
      <LineDiff before={base.content} after={newer.content} label={`From version ${base.version} to ${newer.current_version}`} />
      <details className="conflict-more">
        <summary>The text of version {newer.current_version}</summary>
        <pre className="conflict-text mono">{newer.content}</pre>
      </details>
      <details className="conflict-more">
        <summary>What saving your text would change in version {newer.current_version}</summary>
        <LineDiff before={newer.content} after={draft} label={`From version ${newer.current_version} to your text`} />
      </details>
    </section>
  );
}
