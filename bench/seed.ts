// Seeds a benchmark database with the Atrium checkout given on the command line
// (`npm run bench` runs it once per checkout it compares, each with its own code
// and migrations): an owner with a session, an active Space whose feed holds a
// few hundred events, three members to mention, 150 mentions of the owner for its
// inbox, sixteen members with member keys to write, fifty to own webhook
// subscriptions, and one Resource of about 4 KiB of Markdown.
// Prints the result as one JSON line.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { RESOURCE_TEXT } from './resource-text.js';

type App = typeof import('../src/app.js');
type Config = typeof import('../src/config.js');
type Logger = typeof import('../src/logger.js');
type Sessions = typeof import('../src/identity/sessions.js');
type MemberKeys = typeof import('../src/identity/member-keys.js');
type Members = typeof import('../src/members/service.js');
type Roles = typeof import('../src/roles/service.js');
type Spaces = typeof import('../src/spaces/service.js');
type Admission = typeof import('../src/spaces/admission.js');
type Messages = typeof import('../src/messages/service.js');
type Resources = typeof import('../src/resources/service.js');
type Actor = import('../src/identity/actor.js').Actor;


const [, , root, databaseUrl, dataDir] = process.argv;
const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root!, 'src', path)).href) as Promise<T>;

const { createContext } = await load<App>('app.ts');
const { loadConfig } = await load<Config>('config.ts');
const { createLogger } = await load<Logger>('logger.ts');
const { startSession } = await load<Sessions>('identity/sessions.ts');
const { mintMemberKey } = await load<MemberKeys>('identity/member-keys.ts');
const { createHuman, getMember } = await load<Members>('members/service.ts');
const { assignRole } = await load<Roles>('roles/service.ts');
const { getSpace, proposeSpace, transitionSpace } = await load<Spaces>('spaces/service.ts');
const { join: joinSpace, leave } = await load<Admission>('spaces/admission.ts');
const { postMessage, prepareBody } = await load<Messages>('messages/service.ts');
const { createResource, prepareContent } = await load<Resources>('resources/service.ts');

const config = loadConfig({ ATRIUM_DATABASE_URL: databaseUrl });
config.dataDir = dataDir!;
const ctx = await createContext(config, { log: createLogger('warn') });
try {
  const system = { system: 'admin_cli' } as const;
  const session = await ctx.db.transaction(async (tx) => {
    await createHuman(tx, system, { handle: 'bench-owner', email: 'bench-owner@example.test' });
    await assignRole(tx, system, { member: 'bench-owner', role: 'owner' });
    return (await startSession(tx, 'bench-owner')).token;
  });
  const member = (handle: string): Promise<Actor> =>
    getMember(ctx.db.kysely, handle).then((m) => ({ kind: 'member', member: m, credential: { type: 'session', id: 'seed' } }));
  const owner = await member('bench-owner');
  await ctx.db.transaction((tx) => proposeSpace(tx, owner, { slug: 'bench', name: 'Bench' }));
  await ctx.db.transaction((tx) => transitionSpace(tx, { kind: 'steward' }, 'bench', 'approve'));
  for (let i = 0; i < 150; i++) {
    await ctx.db.transaction((tx) => joinSpace(tx, owner, 'bench'));
    await ctx.db.transaction((tx) => leave(tx, owner, 'bench'));
  }
  await ctx.db.transaction(async (tx) => {
    for (const handle of ['bench-a', 'bench-b', 'bench-c']) await createHuman(tx, system, { handle, email: `${handle}@example.test` });
  });
  // Sixteen writers, each with a member key: concurrent writers are distinct members (each may have two bodies parsed at once).
  const writers: string[] = [];
  for (let i = 0; i < 16; i++) {
    const handle = `bench-writer-${i}`;
    await ctx.db.transaction((tx) => createHuman(tx, system, { handle, email: `${handle}@example.test` }));
    writers.push((await ctx.db.transaction((tx) => mintMemberKey(tx, handle, 'client_activation', 'bench'))).key);
  }
  // The first writer's session consents to an OAuth grant for itself, so the token poll acts as the same member as the key poll.
  const writerSession = (await ctx.db.transaction((tx) => startSession(tx, 'bench-writer-0'))).token;
  // Members to own the webhook scenario's subscriptions (20 each: the per-Space quota), fifty for the usual thousand.
  const subscribers: string[] = [];
  for (let i = 0; i < Math.max(50, Number(process.env.ATRIUM_BENCH_WEBHOOK_SUBSCRIPTIONS ?? 1000) / 20); i++) {
    const handle = `bench-subscriber-${i}`;
    await ctx.db.transaction((tx) => createHuman(tx, system, { handle, email: `${handle}@example.test` }));
    subscribers.push((await ctx.db.transaction((tx) => mintMemberKey(tx, handle, 'client_activation', 'bench'))).key);
  }
  const mentioner = await member('bench-a');
  // This seed serves checkouts from before and after postMessage took the Space's slug instead of its record.
  const bySlug = /^async function postMessage\(\s*tx,\s*actor,\s*slug\b/.test(postMessage.toString());
  const space = bySlug ? 'bench' : await getSpace(ctx.db.kysely, 'bench');
  for (let i = 0; i < 150; i++) {
    const body = await prepareBody(ctx.mentions, `note ${i} for @bench-owner`);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await ctx.db.transaction((tx) => postMessage(tx, mentioner, space as any, { channel: 'general' }, body));
  }
  const resource = await ctx.db.transaction((tx) =>
    createResource(tx, owner, 'bench', { name: 'Bench notes', content: prepareContent(RESOURCE_TEXT, undefined, config.resourceMaxBytes) }),
  );
  process.stdout.write(`${JSON.stringify({ session, writerSession, writers, subscribers, space: 'bench', resource: resource.id })}\n`);
} finally {
  await ctx.close();
}
