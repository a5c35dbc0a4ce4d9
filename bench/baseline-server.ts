// The HTTP ceiling on this machine: a bare Fastify server, in its own process
// like Atrium, answering every GET with the bytes of a real feed page and every
// POST with a Space body, with no database work at all.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [, , port, feedFile, writeFile] = process.argv;
const feed = readFileSync(feedFile!);
const write = readFileSync(writeFile!);
const app = Fastify({ logger: false });
app.get('/*', async (_req, reply) => reply.type('application/json').send(feed));
app.post('/*', async (_req, reply) => reply.code(201).type('application/json').send(write));
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
