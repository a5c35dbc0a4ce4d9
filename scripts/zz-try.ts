import { startServer } from '../test/support/server.js';
import { seedAgent } from '../test/support/seed.js';
import { McpCaller } from '../test/support/mcp.js';
const s = await startServer('sqlite');
await s.human('ada');
const agent = await seedAgent(s, 'reader', 'ada', 'active');
try {
  const c = await McpCaller.connect(s, agent.key);
  console.log('connected', c.tools.size);
  const t = await c.client.listTools();
  console.log('listed', t.tools.length);
  await c.close();
} catch (e) { console.log('ERR', e); }
await s.stop();
