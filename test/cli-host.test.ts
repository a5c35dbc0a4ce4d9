import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { registerClientCommands } from '../src/cli/client/commands.js';
import { CliRunner } from './support/cli.js';
import { freePort, startServer, type TestServer } from './support/server.js';

/**
 * Which host the CLI talks to (docs/cli.md, "Which host"): `--host` on every
 * client command, before the command or after it; ATRIUM_URL; never
 * ATRIUM_HOST, which is the server's listen address, and a person who set it
 * is told so rather than sent elsewhere without a word.
 */
describe('atrium CLI: choosing the host (sqlite)', () => {
  let server: TestServer;
  let cli: CliRunner;
  let ada: { handle: string; session: string };
  /** Where nothing listens: the CLI's default must not be reached by accident. */
  let nowhere: string;

  before(async () => {
    server = await startServer('sqlite');
    ada = await server.human('ada');
    nowhere = `http://127.0.0.1:${await freePort()}`;
    cli = new CliRunner(nowhere);
  });
  after(async () => {
    await cli.cleanup();
    await server.stop();
  });

  it('takes --host on every client command', () => {
    const program = new Command('atrium');
    registerClientCommands(program);
    const without: string[] = [];
    const walk = (command: Command, path: string[]) => {
      for (const sub of command.commands) {
        const named = [...path, sub.name()];
        if (sub.commands.length > 0) walk(sub, named);
        else if (!sub.options.some((option) => option.long === '--host')) without.push(named.join(' '));
      }
    };
    walk(program, []);
    assert.deepEqual(without, []);
  });

  it('takes --host before the command as well as after it, and the one after wins', async () => {
    for (const args of [
      ['--host', server.url, 'whoami', '--json'],
      ['whoami', '--json', '--host', server.url],
      ['--host', nowhere, 'whoami', '--json', '--host', server.url],
    ]) {
      const result = await cli.run(args, { ATRIUM_TOKEN: ada.session });
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.equal((JSON.parse(result.stdout) as { handle: string }).handle, 'ada');
    }
    const listed = await cli.run(['--host', server.url, 'spaces', 'list', '--json'], { ATRIUM_TOKEN: ada.session });
    assert.equal(listed.code, 0, listed.stderr);
  });

  it('refuses --host on a server command, saying where the server listens from', async () => {
    const result = await cli.run(['--host', server.url, 'migrate']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^atrium: --host names the host a client command talks to; "migrate" takes none \(the server listens on ATRIUM_HOST and ATRIUM_PORT\)$/m);
  });

  it('says once that ATRIUM_HOST chooses nothing for the CLI, and which host it talks to instead', async () => {
    // No ATRIUM_URL: the person set only the server's variable, meaning the server they run.
    const result = await cli.run(['whoami'], { ATRIUM_URL: '', ATRIUM_HOST: server.url.replace('http://', ''), ATRIUM_TOKEN: ada.session });
    const notes = result.stderr.split('\n').filter((line) => line.includes('ATRIUM_HOST'));
    assert.deepEqual(notes, [`atrium: ATRIUM_HOST is the server's listen address and chooses nothing here; the CLI reads ATRIUM_URL or --host, and talks to http://localhost:8080`]);

    const chosen = await cli.run(['whoami', '--json', '--host', server.url], { ATRIUM_URL: '', ATRIUM_HOST: '0.0.0.0', ATRIUM_TOKEN: ada.session });
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.doesNotMatch(chosen.stderr, /ATRIUM_HOST/, 'nothing to say when the host was chosen');
  });
});
