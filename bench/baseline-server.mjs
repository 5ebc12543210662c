/**
 * The ceiling every ratio is taken against: a bare Fastify route (no
 * logger, no plugins) answering a JSON body of the same size as indiestack's
 * `q=config` answer, serialised on every request as indiestack does.
 * Usage: node bench/baseline-server.mjs PORT PAYLOAD.json
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [port, payloadFile] = process.argv.slice(2);
const payload = JSON.parse(readFileSync(payloadFile, 'utf8'));

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/config', async () => payload);

for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void app.close());
await app.listen({ host: '127.0.0.1', port: Number(port) });
