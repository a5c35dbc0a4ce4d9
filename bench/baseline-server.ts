// The HTTP ceiling on this machine: a bare Fastify server, in its own process
// like Atrium, answering with the bytes of a real feed page (`/feed`) and of an
// empty tail page (`/empty`), and POSTs with a small body, with no database work.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';

const [, , port, dir] = process.argv;
const feed = readFileSync(join(dir!, 'feed.json'));
const empty = readFileSync(join(dir!, 'empty.json'));
const app = Fastify({ logger: false });
app.get('/feed', async (_req, reply) => reply.type('application/json').send(feed));
app.get('/empty', async (_req, reply) => reply.type('application/json').send(empty));
app.post('/write', async (_req, reply) => reply.code(201).type('application/json').send(empty));
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
