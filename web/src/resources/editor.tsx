import { useRef, useState, type KeyboardEvent } from 'react';
import { RenderedMarkdown } from '../app/markdown';

// The Markdown editor: a plain monospace textarea (the browser's own undo,
// spell check and assistive-technology support) with a Write / Preview tab
// list following the ARIA tabs pattern: arrow keys move between the tabs,
// only the selected tab is in the Tab order. The textarea stays mounted while
// the preview shows, so its undo history survives a look at the preview.

type Tab = 'write' | 'preview';
const TABS: Array<{ id: Tab; label: string }> = [
  { id: 'write', label: 'Write' },
  { id: 'preview', label: 'Preview' },
];

export function MarkdownEditor({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [tab, setTab] = useState<Tab>('write');
  const tabs = useRef<Record<Tab, HTMLButtonElement | null>>({ write: null, preview: null });

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = TABS.findIndex((t) => t.id === tab);
    let next: number | undefined;
    if (event.key === 'ArrowRight') next = (index + 1) % TABS.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + TABS.length) % TABS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = TABS.length - 1;
    if (next === undefined) return;
    event.preventDefault();
    const target = TABS[next]!.id;
    setTab(target);
    tabs.current[target]?.focus();
  };

  return (
    <div className="markdown-editor">
      <div className="editor-bar">
        <label htmlFor={`${id}-text`} className="editor-label">
          {label}
        </label>
        <div role="tablist" aria-label={`${label}: write or preview`} className="editor-tabs">
          {TABS.map((t) => (
            <button
              key={t.id}
              ref={(el) => {
                tabs.current[t.id] = el;
              }}
              type="button"
              role="tab"
              id={`${id}-${t.id}-tab`}
              aria-selected={tab === t.id}
              aria-controls={`${id}-${t.id}`}
              tabIndex={tab === t.id ? 0 : -1}
              onClick={() => setTab(t.id)}
              onKeyDown={onKeyDown}
            >
              {t.label}
            </button>
          ))}
        </div>
      </div>
      <div role="tabpanel" id={`${id}-write`} aria-labelledby={`${id}-write-tab`} hidden={tab !== 'write'}>
        <textarea
          id={`${id}-text`}
          className="mono editor-text"
          value={value}
          rows={18}
          spellCheck
          aria-describedby={`${id}-hint`}
          onChange={(e) => onChange(e.target.value)}
        />
        <p id={`${id}-hint`} className="hint">
          Markdown, GitHub flavour. Raw HTML is left out when shown; images appear as links, never loaded.
        </p>
      </div>
      <div role="tabpanel" id={`${id}-preview`} aria-labelledby={`${id}-preview-tab`} hidden={tab !== 'preview'} tabIndex={0} className="editor-preview">
        {tab === 'preview' ? value.trim() === '' ? <p className="muted">Nothing to preview yet.</p> : <RenderedMarkdown source={value} /> : null}
      </div>
    </div>
  );
}
