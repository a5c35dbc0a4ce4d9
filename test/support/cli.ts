import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/atrium.js', import.meta.url));

/**
 * The settings that choose which code a child `atrium` runs (scripts/run-tests.mjs
 * sets them, see bin/atrium.js): children inherit these, so they run the sources
 * under test, and no other ATRIUM_* setting.
 */
export function isCliBuildSetting(name: string): boolean {
  return name === 'ATRIUM_CLI_BUILD' || name === 'ATRIUM_CLI_SOURCES';
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `atrium` process whose output can be awaited line by line. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  private readonly listeners = new Set<() => void>();
  private done = false;

  constructor(args: string[], env: NodeJS.ProcessEnv, cwd: string, stdin: 'ignore' | 'pipe' = 'ignore') {
    this.child = spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: [stdin, 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', (code, signal) => {
        this.done = true;
        this.notify();
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Resolves with the first match in stdout; fails if the process ends without one. */
  waitForStdout(pattern: RegExp): Promise<RegExpMatchArray> {
    return this.waitFor(() => this.stdout, pattern);
  }

  /** Resolves with the first match in stderr (prompts go there); fails if the process ends without one. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray> {
    return this.waitFor(() => this.stderr, pattern);
  }

  private waitFor(output: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output());
        if (match) {
          this.listeners.delete(check);
          resolve(match);
        } else if (this.done) {
          this.listeners.delete(check);
          reject(new Error(`atrium exited without printing ${pattern}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
        }
      };
      this.listeners.add(check);
      check();
    });
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * Runs the real `atrium` command (bin/atrium.js) as a user would, against one
 * host, with its own empty config directory and no browser.
 */
export class CliRunner {
  readonly configDir: string;
  private readonly cwd: string;
  private readonly running = new Set<CliProcess>();

  constructor(private readonly host: string) {
    this.cwd = mkdtempSync(join(tmpdir(), 'atrium-cli-'));
    this.configDir = join(this.cwd, 'config');
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    // The developer's own ATRIUM_* settings (or a CI flag) must not leak into the child.
    for (const [k, v] of Object.entries(process.env)) {
      if ((!k.startsWith('ATRIUM_') || isCliBuildSetting(k)) && k !== 'CI') env[k] = v;
    }
    return { ...env, ATRIUM_CONFIG_DIR: this.configDir, ATRIUM_NO_BROWSER: '1', ATRIUM_URL: this.host, ...extra };
  }

  /** `stdin: 'pipe'` lets a test type answers (`proc.child.stdin.write`). */
  spawn(args: string[], extra: Record<string, string> = {}, stdin: 'ignore' | 'pipe' = 'ignore'): CliProcess {
    const proc = new CliProcess(args, this.env(extra), this.cwd, stdin);
    this.running.add(proc);
    void proc.exited.finally(() => this.running.delete(proc)).catch(() => {});
    return proc;
  }

  run(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
    return this.spawn(args, extra).exited;
  }

  /** Ends whatever a failed test left running, and removes the temporary directory. */
  async cleanup(): Promise<void> {
    const left = [...this.running];
    for (const proc of left) proc.child.kill('SIGKILL');
    await Promise.allSettled(left.map((p) => p.exited));
    rmSync(this.cwd, { recursive: true, force: true });
  }
}

/** The exit statuses docs/cli.md promises, by HTTP status of the refusal. */
const EXIT_BY_STATUS: Record<number, number> = { 401: 3, 403: 4, 404: 5, 409: 6, 500: 7, 503: 7 };

/**
 * A refusal as the CLI reports it: the documented exit status for its class,
 * and one line on stderr with the host's error code, its detail and the HTTP
 * status. Answers the code.
 */
export function assertRefusal(result: CliResult, httpStatus: number): string {
  assert.equal(result.code, EXIT_BY_STATUS[httpStatus] ?? 1, result.stderr);
  const line = new RegExp(`^atrium: \\[([a-z0-9_]+)\\] [^\\n]+ \\(HTTP ${httpStatus}\\)(?:; run "atrium sign-in" first)?\\n$`).exec(result.stderr);
  assert.ok(line, `one refusal line with a code, naming HTTP ${httpStatus}: ${result.stderr}`);
  return line[1]!;
}
