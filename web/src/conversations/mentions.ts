// Mentions, as the reader sees them. Which handles a message mentions was
// decided by the server when it was posted (`mentioned_members`, never
// recomputed: docs/mentions.md); the page only finds where they are written,
// so an `@name` that notified nobody (an unknown handle, one inside code or a
// link) is never styled as if it had.

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  data?: { hName?: string; hProperties?: Record<string, unknown> };
}

/** Scripts written without spaces between words: their characters never join a handle's word (docs/mentions.md). */
const CJK = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}`;
/**
 * `@` starting a word, then a handle run that does not clearly go on
 * (the boundary rules of docs/mentions.md, closely enough to find where the
 * server's resolved mentions are written; the server alone decides them).
 */
const MENTION = new RegExp(
  String.raw`(?<!(?![${CJK}])[\p{L}\p{N}\p{M}_.+\-@/])@([a-z0-9-]+)(?!(?![${CJK}])[\p{L}\p{N}\p{M}_@]|[./][\p{L}\p{N}_])`,
  'giu',
);
const HANDLE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/i;

/** Inside these the server never resolves a mention, so neither do we mark one. */
const NOT_PROSE = new Set(['link', 'linkReference', 'inlineCode', 'code', 'html', 'image', 'imageReference', 'definition']);

/**
 * A remark plugin that wraps each written mention of `mentioned` in a
 * `<span class="mention">`, and mentions of `reader` in a `<mark>`.
 */
export function remarkMentions(options: { mentioned: readonly string[]; reader: string | null }) {
  const mentioned = new Set(options.mentioned.map((h) => h.toLowerCase()));
  const split = (text: string): MdNode[] => {
    const out: MdNode[] = [];
    let last = 0;
    for (const match of text.matchAll(MENTION)) {
      // A handle never ends in a hyphen: `@alice-` is alice.
      const written = match[1]!.replace(/-+$/, '');
      const handle = written.toLowerCase();
      if (!HANDLE.test(written) || !mentioned.has(handle)) continue;
      const start = match.index;
      if (start > last) out.push({ type: 'text', value: text.slice(last, start) });
      const me = handle === options.reader;
      out.push({
        type: 'mention',
        data: { hName: me ? 'mark' : 'span', hProperties: { className: me ? ['mention', 'mention-me'] : ['mention'] } },
        children: [{ type: 'text', value: `@${written}` }],
      });
      last = start + 1 + written.length;
    }
    if (last === 0) return [{ type: 'text', value: text }];
    if (last < text.length) out.push({ type: 'text', value: text.slice(last) });
    return out;
  };
  const walk = (node: MdNode) => {
    if (!node.children || NOT_PROSE.has(node.type)) return;
    node.children = node.children.flatMap((child) => {
      if (child.type === 'text' && child.value) return split(child.value);
      walk(child);
      return [child];
    });
  };
  return () => (tree: MdNode) => {
    if (mentioned.size > 0) walk(tree);
  };
}

/**
 * The `@handle` being typed just before the caret, if any: its start offset
 * and the letters typed so far (possibly none, right after the `@`).
 */
export function mentionAtCaret(text: string, caret: number): { start: number; query: string } | null {
  const match = /(^|[^\p{L}\p{N}\p{M}_@./+-])@([a-z0-9-]*)$/iu.exec(text.slice(0, caret));
  if (!match) return null;
  return { start: match.index + match[1]!.length, query: match[2]!.toLowerCase() };
}

/** The handles to offer for what has been typed: prefix matches first, then the rest that contain it. */
export function suggestHandles(handles: readonly string[], query: string, exclude: string | null, max = 8): string[] {
  const pool = handles.filter((h) => h !== exclude);
  const prefix = pool.filter((h) => h.startsWith(query));
  const inner = pool.filter((h) => !h.startsWith(query) && h.includes(query));
  return [...prefix.sort(), ...inner.sort()].slice(0, max);
}
