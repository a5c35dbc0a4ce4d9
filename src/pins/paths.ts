import { invalid } from '../shared/errors.js';
import { pattern } from '../shared/schemas.js';

/** A pin entry naming a file on the repository's `main` branch (protocol: Space, `pinned_resources`). */
export const REPO_PREFIX = 'repo:';

/** Longest pin entry, `repo:` included; git itself allows longer paths, no front page needs them. */
export const PIN_ENTRY_MAX = 1024;

/**
 * What a schema can say of a repository path: something ending in `.md`. The
 * finer rules (relative, no `.`/`..`/`.git` segments, no backslash or control
 * character) are `repositoryPathProblem`'s, whose refusals say which one failed.
 */
export const REPOSITORY_PATH_PATTERN = pattern('^[^\\u0000]*[^/\\u0000]\\.md$', 'a path ending in .md');

/** A pin entry: a Resource id, or `repo:` and a repository path. */
export const PIN_ENTRY_PATTERN = pattern(
  '^(?:res_[a-z2-7]{26}|repo:[^\\u0000]*[^/\\u0000]\\.md)$',
  'a Resource id (res_…) or repo:<path>.md',
);

export function isRepositoryEntry(entry: string): boolean {
  return entry.startsWith(REPO_PREFIX);
}

export function repositoryEntry(path: string): string {
  return `${REPO_PREFIX}${path}`;
}

export function entryPath(entry: string): string {
  return entry.slice(REPO_PREFIX.length);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why a repository path is refused, or undefined when it is acceptable. The
 * path is only ever looked up in git's object store, never opened on a file
 * system, but a path that could mean two things (`a/./b.md`, `a//b.md`) would
 * let one file be pinned twice, and one that climbs (`..`) or reaches into
 * `.git` names nothing a front page should show.
 */
export function repositoryPathProblem(path: string): string | undefined {
  if (path === '') return 'is empty';
  if (CONTROL.test(path)) return 'contains a control character';
  if (path.includes('\\')) return 'contains a backslash: use / between segments';
  if (path.startsWith('/')) return 'is absolute: give it relative to the repository root';
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'has an empty segment';
  if (segments.some((s) => s === '.' || s === '..')) return 'has a . or .. segment';
  if (segments.some((s) => s.toLowerCase() === '.git')) return 'has a .git segment';
  const name = segments.at(-1)!;
  if (!name.endsWith('.md') || name.length <= '.md'.length) return 'does not name a .md file';
  return undefined;
}

/** 422 for a path that may not be pinned or read; `where` names the field for the caller. */
export function checkRepositoryPath(path: string, where: string): void {
  const problem = repositoryPathProblem(path);
  if (problem) throw invalid('validation_failed', `${where}: repository path "${printable(path)}" ${problem}`);
}

/** A path echoed in a detail must not smuggle control characters into a terminal or a log. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, '\uFFFD');
}
