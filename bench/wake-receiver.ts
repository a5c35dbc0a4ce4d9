// The webhook scenario's receiver, in a process of its own so that answering
// thousands of wakes does not share an event loop (or a core's time slices)
// with the load generator: echoes challenges, answers every wake 202 at once,
// and prints `<subscription id> <epoch ms> <through>` per wake for `npm run bench` to
// time (`through`: the newest cursor the wake announces).
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const now = () => performance.timeOrigin + performance.now();
const out: string[] = [];
let scheduled = false;

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      type?: string;
      challenge?: string;
      subscription_id?: string;
      event_range?: { through?: number };
    };
    if (body.type === 'atrium.webhook.challenge') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      return;
    }
    res.writeHead(202).end();
    if (!body.subscription_id) return;
    out.push(`${body.subscription_id} ${at.toFixed(3)} ${body.event_range?.through ?? 0}`);
    // One write per turn of the event loop, not one per wake.
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        process.stdout.write(`${out.splice(0).join('\n')}\n`);
      });
    }
  });
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
