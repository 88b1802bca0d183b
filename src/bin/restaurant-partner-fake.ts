#!/usr/bin/env node
/**
 * `restaurant-partner-fake`: the fake service as a standalone HTTP server (README, "Standalone, for suites in any language").
 *
 * Prints ONE JSON line on stdout once listening (`{"url", "partners", "restaurants"}`) so a script
 * in any language can read the seeded credentials; human-readable logs go to stderr.
 * It imports the core and the node:http adapter only (never msw, an optional peer dependency).
 * @module
 */
import { parseArgs } from 'node:util';
import { parseDialectArguments } from '../testing/dialects.js';
import { startFakeServer } from '../testing/node-server.js';

const usage = `Usage: restaurant-partner-fake [--port N] [--host 127.0.0.1] [--seed demo|none]
                               [--rate-limit RPS|off] [--dialect key=value ...] [--quiet]

Listens on 127.0.0.1:4010 by default (--port 0 picks a free port; the JSON start line says which).
Serves the partner API at /api/v1/partnership/ and the control API at /_fake/ (GET /_fake/ lists it).
Dialect keys: list=envelope|array, profile=object|list, duration=iso|hms, createStatus=201|200,
deleteStatus=204|200, cancelBody=reservation|empty, pageLinks=absolute|relative,
idempotencyKey=honoured|ignored.`;

function fail(message: string): never {
  process.stderr.write(`restaurant-partner-fake: ${message}\n\n${usage}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        // A fixed default port lets a newcomer paste the README's curl line; --port 0 picks a free one.
        port: { type: 'string', default: '4010' },
        host: { type: 'string', default: '127.0.0.1' },
        seed: { type: 'string', default: 'demo' },
        'rate-limit': { type: 'string', default: '1' },
        dialect: { type: 'string', multiple: true, default: [] },
        'allow-remote-control': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be 0..65535 (got "${values.port}")`);
  if (values.seed !== 'demo' && values.seed !== 'none') fail(`--seed must be demo or none (got "${values.seed}")`);
  const rateText = values['rate-limit'];
  const rateLimit = rateText === 'off' ? false : Number(rateText);
  if (rateLimit !== false && !(rateLimit > 0 && Number.isFinite(rateLimit))) fail(`--rate-limit must be a positive number or off (got "${rateText}")`);
  let dialect;
  try {
    dialect = parseDialectArguments(values.dialect);
  } catch (error) {
    fail((error as Error).message);
  }
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  const server = await startFakeServer({
    port,
    host: values.host,
    seed: values.seed,
    rateLimit,
    dialect,
    allowRemoteControl: values['allow-remote-control'],
    logger: values.quiet ? undefined : log,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Signals are handled before the start line is printed: a script may stop us as soon as it reads it.
  const seed = server.fake.describeSeed();
  process.stdout.write(`${JSON.stringify({ url: server.url, ...seed })}\n`);
  log(`restaurant-partner-fake listening on ${server.url} (rate limit ${rateLimit === false ? 'off' : `${rateLimit}/s`}); control API at ${server.url}/_fake/`);
}

main().catch((error: unknown) => {
  process.stderr.write(`restaurant-partner-fake: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
