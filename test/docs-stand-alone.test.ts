import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The project's documentation stands alone: docs/protocol.md describes the
 * protocol, and nothing in the repository sends a reader to a document that
 * does not ship with it. Relative Markdown links must lead somewhere, and a
 * `#anchor` must name a heading of the page it points into.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = toPosix(relative(ROOT, fileURLToPath(import.meta.url)));

/**
 * Names of documents outside the repository; citing them sends a reader nowhere.
 * Spelled in pieces, so that a search of the repository for them finds nothing here.
 */
const OUTSIDE_DOCUMENTS = [['reference', 'v0'].join('-'), ['decisions', 'md'].join('\\.'), ['decisions', '§'].join(' ?')].map(
  (source) => new RegExp(source, 'i'),
);

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

function trackedFiles(...paths: string[]): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', ...paths], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter((file) => file !== '' && existsSync(join(ROOT, file)));
}

function read(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/** Markdown with fenced code blocks blanked out (line count kept), so examples are not read as links or headings. */
function withoutCodeBlocks(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined) {
        if (marker) fence = marker;
        return marker ? '' : line;
      }
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return '';
    })
    .join('\n');
}

function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[\s\S]*?\1/g, '');
}

/** GitHub's heading anchor: inline markup reduced to its text, lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings get, repeats numbered as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Link destinations of a page: inline links and images, and reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = withoutCodeSpans(withoutCodeBlocks(markdown));
  const inline = [...text.matchAll(/\]\(\s*(?:<([^>]*)>|([^)\s]+))(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)].map((m) => m[1] ?? m[2]!);
  const definitions = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*(?:<([^>]*)>|(\S+))/gm)].map((m) => m[1] ?? m[2]!);
  return [...inline, ...definitions];
}

function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//');
}

interface Resolved {
  path: string;
  anchor: string | undefined;
}

function resolveLink(from: string, target: string): Resolved {
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  return { path: path === '' ? from : toPosix(join(dirname(from), path)), anchor };
}

const anchorCache = new Map<string, Set<string>>();
function anchorsIn(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = anchorsOf(read(file));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

describe('documentation stands alone', () => {
  it('cites no document outside the repository', () => {
    const files = trackedFiles('docs', 'src', 'web/src', 'test', 'README.md').filter((file) => file !== SELF);
    assert.ok(files.includes('docs/protocol.md'), 'docs/protocol.md is tracked');
    const citations: string[] = [];
    for (const file of files) {
      read(file)
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE_DOCUMENTS.some((pattern) => pattern.test(line))) citations.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
        });
    }
    assert.deepEqual(citations, [], 'cite docs/protocol.md (or another project doc) instead');
  });

  it('has relative Markdown links that lead to existing files and headings', () => {
    const pages = trackedFiles('docs', 'README.md').filter((file) => file === 'README.md' || /^docs\/[^/]+\.md$/.test(file));
    assert.ok(pages.length > 5, 'the docs are found');
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of linkTargets(read(page)).filter(isRelative)) {
        const { path, anchor } = resolveLink(page, target);
        if (path.startsWith('../') || !existsSync(join(ROOT, path))) {
          broken.push(`${page}: ${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && path.endsWith('.md') && statSync(join(ROOT, path)).isFile() && !anchorsIn(path).has(anchor)) {
          broken.push(`${page}: ${target}: no heading #${anchor} in ${path}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('points code comments at headings docs/protocol.md has', () => {
    const anchors = anchorsIn('docs/protocol.md');
    const broken: string[] = [];
    for (const file of trackedFiles('src', 'web/src', 'test').filter((f) => f !== SELF)) {
      for (const match of read(file).matchAll(/docs\/protocol\.md#([\w-]+)/g)) {
        if (!anchors.has(match[1]!)) broken.push(`${file}: docs/protocol.md#${match[1]}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('computes anchors the way GitHub does', () => {
    const anchors = anchorsOf('# The Atrium protocol\n## Owner, Host and maintainer\n### `since` and `limit`\n## Feeds\n## Feeds\n```\n# not a heading\n```\n');
    assert.deepEqual([...anchors], ['the-atrium-protocol', 'owner-host-and-maintainer', 'since-and-limit', 'feeds', 'feeds-1']);
  });
});
