// The HTTP ceiling on this machine: a bare Fastify server, in its own process
// like Atrium, answering with the bytes of a real feed page (`/feed`), of an
// empty tail page (`/empty`) and of a search page (`/search`), whichever the run
// recorded, and POSTs with a small body, with no database work.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';

const [, , port, dir] = process.argv;
const app = Fastify({ logger: false });
const page = (name: string): Buffer => (existsSync(join(dir!, `${name}.json`)) ? readFileSync(join(dir!, `${name}.json`)) : Buffer.from('{}'));
const feed = page('feed');
const empty = page('empty');
const search = page('search');
app.get('/feed', async (_req, reply) => reply.type('application/json').send(feed));
app.get('/empty', async (_req, reply) => reply.type('application/json').send(empty));
app.get('/search', async (_req, reply) => reply.type('application/json').send(search));
app.post('/write', async (_req, reply) => reply.code(201).type('application/json').send(empty));
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
