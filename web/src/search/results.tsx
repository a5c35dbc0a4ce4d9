import { useMemo } from 'react';
import { headingOfMatch } from '../app/heading-anchors';
import { Link } from '../app/router';
import { Handle, RelativeTime } from '../app/ui';
import { useResource } from '../resources/queries';
import { useSpace } from '../spaces/space';
import { useTask } from '../tasks/queries';
import { directPartner, firstMatchOffset, highlightParts, resultPath, type SearchResult } from './address';

// One search result: a link in words to where it lives, which Space, who
// wrote it and when, and its snippet with the matches marked. Everything
// shown is member-written, so it is rendered as text, never as HTML.

const KIND_LABEL = { message: 'Message', task: 'Task', resource: 'Resource' } as const;

export function SearchResultItem({ result, reader }: { result: SearchResult; reader: string | null }) {
  if (result.kind === 'resource') return <ResourceResult result={result} reader={reader} />;
  if (result.kind === 'message' && result.task_id !== undefined) return <DiscussionResult result={result} reader={reader} taskId={result.task_id} />;
  return <ResultCard result={result} path={resultPath(result, reader)} headline={headline(result, reader)} />;
}

function headline(result: SearchResult, reader: string | null): string {
  if (result.kind !== 'message') return result.title ?? `${KIND_LABEL[result.kind]} ${String(result.id)}`;
  if (result.channel !== undefined) return `#${result.channel}`;
  return `Direct message with @${directPartner(result, reader)}`;
}

/** A discussion message says which task it belongs to, by the task's title. */
function DiscussionResult({ result, reader, taskId }: { result: SearchResult; reader: string | null; taskId: number }) {
  const task = useTask(result.space, taskId);
  const name = task.data ? `“${task.data.title}”` : `task #${taskId}`;
  return <ResultCard result={result} path={resultPath(result, reader)} headline={`Discussion of ${name}`} />;
}

/**
 * A Resource leads to the heading above its first match. The snippet is a
 * window of the text's plain text, so the text itself is read (the same read
 * the Resource page makes, so opening it costs nothing more) to find where
 * the window sits.
 */
function ResourceResult({ result, reader }: { result: SearchResult; reader: string | null }) {
  const doc = useResource(result.space, String(result.id));
  const content = doc.data?.content;
  const anchor = useMemo(() => {
    if (content === undefined) return null;
    return headingOfMatch(content, (plain) => firstMatchOffset(plain, result.snippet, result.highlights));
  }, [content, result.snippet, result.highlights]);
  return <ResultCard result={result} path={resultPath(result, reader, anchor)} headline={result.title ?? `Resource ${String(result.id)}`} />;
}

function ResultCard({ result, path, headline }: { result: SearchResult; path: string; headline: string }) {
  const space = useSpace(result.space);
  return (
    <article className="search-result" aria-labelledby={`result-${result.kind}-${String(result.id)}`}>
      <h2 id={`result-${result.kind}-${String(result.id)}`} className="search-result-title">
        <Link to={path}>{headline}</Link>
      </h2>
      <p className="search-result-meta">
        <span className="badge">{KIND_LABEL[result.kind]}</span> in <span className="search-result-space">{space.data?.name ?? result.space}</span>
        {' · '}
        <span className="search-result-by">
          <Handle handle={result.author} /> · <RelativeTime iso={result.created_ts} />
        </span>
      </p>
      {result.snippet !== '' ? <Snippet text={result.snippet} highlights={result.highlights} /> : null}
    </article>
  );
}

function Snippet({ text, highlights }: { text: string; highlights: number[][] }) {
  const parts = useMemo(() => highlightParts(text, highlights), [text, highlights]);
  return (
    <p className="search-snippet">
      {parts.map((part, i) => (part.marked ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </p>
  );
}
