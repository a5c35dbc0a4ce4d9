import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestServer } from './server.js';

/**
 * A real git repository in a temporary directory, for ATRIUM_REPOSITORY_PATH.
 * Commits go to `main` through the git CLI; the developer's own git
 * configuration (signing, hooks, templates) is kept out.
 */
export class TestRepository {
  readonly path = mkdtempSync(join(tmpdir(), 'atrium-repo-'));

  constructor() {
    this.git('init', '-q', '-b', 'main');
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
      cwd: this.path,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: devNull, LC_ALL: 'C' },
      encoding: 'utf8',
    });
  }

  /** Writes (string: UTF-8; Buffer: exact bytes) or deletes (null) files, then commits them to the current branch. */
  commit(message: string, files: Record<string, string | Buffer | null>): string {
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.path, path);
      if (content === null) {
        unlinkSync(full);
        this.git('rm', '-q', '--cached', '--', path);
      } else {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
        this.git('add', '--', path);
      }
    }
    this.git('commit', '-q', '-m', message);
    return this.git('rev-parse', 'HEAD').trim();
  }

  /** A file in the working tree only: never committed, so never on `main`. */
  writeUncommitted(path: string, content: string): void {
    const full = join(this.path, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

/** A Resource created through the public API (`POST /v0/spaces/{slug}/resources`); returns its id. */
export async function createResource(server: TestServer, slug: string, token: string, name: string, content: string): Promise<string> {
  const res = await server.request('POST', `/v0/spaces/${slug}/resources`, { token, body: { name, content } });
  assert.equal(res.status, 201, res.body?.detail);
  return res.body.id as string;
}

/** Row counts of everything a pin or pin-proposal write touches: "nothing written" means none moved. */
export async function pinRowCounts(server: TestServer): Promise<Record<string, number | string>> {
  const db = server.app.ctx.db.kysely;
  const count = async (table: 'events' | 'event_subjects' | 'tasks') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const decisions = await db
    .withTables<{ pin_proposal_decisions: { task_id: number } }>()
    .selectFrom('pin_proposal_decisions')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const pins = await db.selectFrom('spaces').select(['slug', 'pinned_resources', 'updated_ts']).orderBy('slug').execute();
  return {
    events: await count('events'),
    event_subjects: await count('event_subjects'),
    tasks: await count('tasks'),
    decisions: Number(decisions.n),
    spaces: JSON.stringify(pins),
  };
}
