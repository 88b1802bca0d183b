/**
 * The baseline of `fake_rps_ratio`: a bare `node:http` server that answers every request with the
 * same status, headers and body bytes the fake answered, doing nothing else. Prints `{"url"}` as
 * one JSON line once listening.
 *
 * Usage: node bare-server.mjs --answer FILE (JSON: {status, headers, body (base64)})
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { answer: { type: 'string' } } });
const answer = JSON.parse(readFileSync(values.answer, 'utf8'));
const body = Buffer.from(answer.body, 'base64');
const headers = { ...answer.headers, 'content-length': String(body.byteLength) };
const server = createServer((request, response) => {
  // Read (and drop) whatever the request carries, as the fake does before answering.
  request.resume();
  request.on('end', () => {
    response.writeHead(answer.status, headers);
    response.end(body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
