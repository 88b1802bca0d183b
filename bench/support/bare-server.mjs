/**
 * A bare `node:http` server that answers with status, headers and body bytes the fake answered,
 * doing nothing else: the baseline of `fake_rps_ratio`, and the server of the overhead figures.
 * Prints `{"url"}` as one JSON line once listening.
 *
 * Usage: node bare-server.mjs --answer FILE, FILE holding one answer for every request
 * ({status, headers, body (base64)}), or answers by path ({"/path/": answer, ...}; the query is
 * ignored; another path gets 404).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { answer: { type: 'string' } } });
const prepare = (answer) => {
  const body = Buffer.from(answer.body, 'base64');
  return {
    status: answer.status,
    body,
    headers: { ...answer.headers, 'content-length': String(body.byteLength) },
  };
};
const file = JSON.parse(readFileSync(values.answer, 'utf8'));
const single = typeof file.status === 'number' ? prepare(file) : undefined;
const byPath = new Map(single ? [] : Object.entries(file).map(([path, answer]) => [path, prepare(answer)]));
const notFound = prepare({
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{"detail":"Not found."}').toString('base64'),
});
const server = createServer((request, response) => {
  // Read (and drop) whatever the request carries, as the fake does before answering.
  request.resume();
  request.on('end', () => {
    const answer = single ?? byPath.get((request.url ?? '/').split('?')[0]) ?? notFound;
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
