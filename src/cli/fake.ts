/**
 * `restaurant-partner fake` (alias `restaurant-partner-fake`): the fake service as a standalone
 * HTTP server (README, "Standalone, for suites in any language").
 *
 * Prints ONE JSON line on stdout once listening (`{"url", "partners", "restaurants"}`) so a script
 * in any language can read the seeded credentials; human-readable logs go to stderr.
 * It imports the core and the node:http adapter only (never msw, an optional peer dependency).
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { DialectFile } from '../dialect/file.js';
import {
  DIALECT_VALUES,
  parseDialectArguments,
  resolveDialect,
  type Dialect,
} from '../testing/backend/dialects.js';
import { startFakeServer } from '../testing/node.js';
import { watchParent, writePidFile } from './lifetime.js';

/** `key=a|b` for every dialect key, the default first: written from the table the fake checks with. */
const dialectHelp = Object.entries(DIALECT_VALUES)
  .map(([key, values]) => `${key}=${values.join('|')}`)
  .join(', ');

const usage = `Usage: restaurant-partner fake [--port N] [--host 127.0.0.1] [--seed demo|none]
                               [--rate-limit RPS|off] [--dialect key=value ...]
                               [--dialect-file FILE] [--record-file FILE]
                               [--allow-remote-control] [--allowed-host NAME ...]
                               [--max-sandboxes N]
                               [--sandbox-idle-minutes N] [--pid-file FILE]
                               [--outlive-parent] [--quiet] [--json] [--help]

Listens on 127.0.0.1:4010 by default (--port 0 picks a free port; the JSON start line says which).
Serves the partner API at /api/v1/partnership/ and the control API at /_fake/ (GET /_fake/ lists it).
Open /_fake/ui in a browser to act as the restaurant (the simulator page).
The control API answers loopback callers addressing this server by its own host name, and no page
of another origin; --allow-remote-control lifts all three guards (it has no credentials).
The partner API answers under IP addresses and localhost; other host names (a container's
name, say) must be allowed with --allowed-host NAME (repeatable; .example.test takes its
subdomains too, * any name), a guard against pages that rebind their own name to this machine.
--rate-limit takes requests per second per partner, fractions included (2.5), or off.
POST /_fake/sandboxes creates isolated worlds for parallel suites: at most --max-sandboxes
(default 50), each ending after --sandbox-idle-minutes without a request (default 15).
--dialect-file FILE answers in the dialect restaurant-partner doctor learned (partner-dialect.json);
--record-file FILE in the dialect of a doctor --record transcript; --dialect key=value goes over either.
Dialect keys (default first): ${dialectHelp}.
--pid-file FILE writes this server's process id once it listens (removed when it stops): kill
that pid, not the one npx prints. The server stops with the process that started it (SIGTERM,
SIGINT or SIGHUP to it, or its parent's death, SIGKILL and npm's wrapper included);
--outlive-parent keeps it running after its parent exits (a server started in the background).

Example:
  restaurant-partner fake --port 0 --pid-file .fake.pid --seed demo`;

function fail(message: string): never {
  process.stderr.write(`restaurant-partner fake: ${message}\n\n${usage}\n`);
  process.exit(2);
}

/** The dialect of `--dialect-file` (doctor's file) or `--record-file` (doctor's transcript, which carries the file). */
function learnedDialect(dialectFile: string | undefined, recordFile: string | undefined): Dialect {
  if (dialectFile !== undefined && recordFile !== undefined)
    fail('give --dialect-file or --record-file, not both');
  const file = dialectFile ?? recordFile;
  if (file === undefined) return resolveDialect();
  const flag = dialectFile === undefined ? '--record-file' : '--dialect-file';
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`${flag} ${file}: ${(error as Error).message}`);
  }
  const learned = recordFile === undefined ? parsed : (parsed as { dialect?: unknown } | null)?.dialect;
  if (typeof learned !== 'object' || learned === null || !('points' in learned))
    fail(`${flag} ${file}: not a file written by restaurant-partner doctor`);
  return resolveDialect(learned as DialectFile);
}

/** Runs `restaurant-partner fake` with `args` (the words after the command name). */
export async function run(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        // A fixed default port lets a newcomer paste the README's curl line; --port 0 picks a free one.
        port: { type: 'string', default: '4010' },
        host: { type: 'string', default: '127.0.0.1' },
        seed: { type: 'string', default: 'demo' },
        'rate-limit': { type: 'string', default: '1' },
        dialect: { type: 'string', multiple: true, default: [] },
        'dialect-file': { type: 'string' },
        'record-file': { type: 'string' },
        'allow-remote-control': { type: 'boolean', default: false },
        'allowed-host': { type: 'string', multiple: true, default: [] },
        'max-sandboxes': { type: 'string', default: '50' },
        'sandbox-idle-minutes': { type: 'string', default: '15' },
        'pid-file': { type: 'string' },
        'outlive-parent': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        // Accepted like every command's: the start line is JSON already.
        json: { type: 'boolean', default: false },
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
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    fail(`--port must be 0..65535 (got "${values.port}")`);
  if (values.seed !== 'demo' && values.seed !== 'none')
    fail(`--seed must be demo or none (got "${values.seed}")`);
  const rateText = values['rate-limit'];
  const rateLimit = rateText === 'off' ? false : Number(rateText);
  if (rateLimit !== false && !(rateLimit > 0 && Number.isFinite(rateLimit)))
    fail(`--rate-limit must be a positive number or off (got "${rateText}")`);
  const maxSandboxes = Number(values['max-sandboxes']);
  if (!Number.isInteger(maxSandboxes) || maxSandboxes < 0 || maxSandboxes > 10_000)
    fail(`--max-sandboxes must be 0..10000 (got "${values['max-sandboxes']}")`);
  const idleMinutes = Number(values['sandbox-idle-minutes']);
  if (!(idleMinutes > 0 && idleMinutes <= 7 * 24 * 60))
    fail(
      `--sandbox-idle-minutes must be a positive number of minutes up to a week (got "${values['sandbox-idle-minutes']}")`,
    );
  let dialect;
  try {
    dialect = {
      ...learnedDialect(values['dialect-file'], values['record-file']),
      ...parseDialectArguments(values.dialect, false),
    };
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
    allowedHosts: values['allowed-host'],
    sandboxes: { max: maxSandboxes, idleTimeoutMs: idleMinutes * 60_000 },
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
  process.on('SIGHUP', () => stop('SIGHUP'));
  if (!values['outlive-parent']) watchParent((why) => stop(`${why}`));
  if (values['pid-file'] !== undefined) writePidFile(values['pid-file']);
  // Signals are handled before the start line is printed: a script may stop us as soon as it reads it.
  const seed = server.fake.describeSeed();
  process.stdout.write(`${JSON.stringify({ url: server.url, ...seed })}\n`);
  log(
    `restaurant-partner-fake listening on ${server.url} (rate limit ${rateLimit === false ? 'off' : `${rateLimit}/s`}); control API at ${server.url}/_fake/, simulator page at ${server.url}/_fake/ui`,
  );
}
