/**
 * One side of the receiver comparison, as its own process: `--kind receiver` serves the built
 * package's webhook receiver (`nodeHandler()`, default options: in-memory duplicate store, body
 * and handler limits) on `node:http`; `--kind bare` is the baseline, a bare `node:http` handler
 * that reads the body and compares the authorization header, and answers the same JSON. Prints
 * `{"url"}` once listening; answers an IPC `'stats'` message with `{ maxRssKb, cpuMicros, userCpuMicros,
 * systemCpuMicros, busyMicros }` (peak RSS, CPU time used so far, its user and kernel parts, and
 * the time the event loop was busy).
 *
 * Usage: node receiver-server.mjs --kind receiver|bare --token TOKEN
 */
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { kind: { type: 'string' }, token: { type: 'string' } } });
const expected = `Bearer ${values.token}`;

let handler;
if (values.kind === 'receiver') {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const { createWebhookReceiver } = await import(pathToFileURL(join(root, 'dist/webhooks/index.js')).href);
  let handled = 0;
  handler = createWebhookReceiver({ tokens: [values.token], logger: false })
    .on('*', () => void (handled += 1))
    .nodeHandler();
} else {
  const ok = JSON.stringify({ received: true });
  const refused = JSON.stringify({ error: 'unauthorized' });
  handler = (request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const status = request.headers.authorization === expected && body.byteLength > 0 ? 200 : 401;
      const text = status === 200 ? ok : refused;
      // With its length, as the receiver answers: one write, no chunked framing.
      response.writeHead(status, {
        'content-type': 'application/json',
        'content-length': String(text.length),
      });
      response.end(text);
    });
  };
}

const server = createServer(handler);
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`),
);
process.on('message', (message) => {
  if (message === 'stats') {
    const usage = process.resourceUsage();
    process.send({
      maxRssKb: usage.maxRSS,
      cpuMicros: usage.userCPUTime + usage.systemCPUTime,
      userCpuMicros: usage.userCPUTime,
      systemCpuMicros: usage.systemCPUTime,
      // The main thread's busy time: what bounds a server's deliveries per second (GC helper
      // threads and the kernel count in the CPU time above, and may run on another core).
      busyMicros: performance.eventLoopUtilization().active * 1000,
    });
  }
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
