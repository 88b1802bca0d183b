/**
 * `restaurant-partner doctor`: checks a partner's setup against the live service and learns its
 * dialect (the answers where the interface is open) into `partner-dialect.json`, which
 * `PartnerClient({ dialect })` and the fake (`--dialect-file`) then follow. Credentials from
 * `PARTNER_BASE_URL`, `PARTNER_ID`, `PARTNER_TOKEN`; never prompts. Exit 0 ok, 1 a check failed
 * or drift found (or something could not be cleaned), 2 usage.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PartnerClient } from '../client.js';
import { isDialectFile, readDialect, type DialectFile } from '../dialect/file.js';
import { PartnerSdkError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { createSecrets } from '../transport/secrets.js';
import type { RateLimiter } from '../transport/rate-limiter.js';
import {
  checkClock,
  checkRestaurants,
  checkWebhooks,
  readErrorBody,
  readReservationLists,
  type DoctorContext,
} from './doctor-checks.js';
import { describeFailure, Probe } from './doctor-probe.js';
import { checkConfig, checkReachAndCredentials } from './doctor-reach.js';
import { compareDialects, notRechecked, Report, type CheckLine, type Drift } from './doctor-report.js';
import { Cleanup, probeBooking, probeWebhook } from './doctor-writes.js';

const usage = `Usage: restaurant-partner doctor [--out FILE] [--probe-writes] [--webhook-url URL]
                                 [--compare FILE] [--record FILE] [--json]
                                 [--base-url URL] [--partner-id UUID] [--rate-limit RPS]
                                 [--redis-url URL] [--help]

Checks the setup against the service (reach, credentials, clock, restaurants, webhooks) and learns
its dialect into partner-dialect.json (--out FILE). Read-only unless told: at most 20 requests.
Credentials come from PARTNER_BASE_URL, PARTNER_ID and PARTNER_TOKEN (the token only from the
environment); --base-url and --partner-id override the first two.
  --probe-writes     also book one table 8 days ahead (cancelled in the same run) and create a
                     temporary webhook (deleted in the same run), to learn the write answers
  --webhook-url URL  send a test delivery to your receiver through a temporary webhook
  --compare FILE     exit 1 and name each point that changed since FILE (writes --out only if given)
  --record FILE      write a redacted transcript of every probe and answer
  --json             print one JSON document instead of lines
  --rate-limit RPS   requests per second doctor allows itself (default 1, the service's limit)
  --redis-url URL    wait on the partner's shared budget in this Redis (createRedisRateLimiter's
                     default keys; needs the ioredis package), so doctor and your running
                     processes together stay within the limit
Exit codes: 0 ok (warnings included), 1 a check failed, drift found or something left behind, 2 usage.`;

/** What `runDoctor` takes: the command line's choices, and for tests a `fetch` of their own. */
export interface DoctorOptions {
  baseUrl: string;
  partnerId: string;
  token: string;
  /** Where to write the dialect file; false not to write it. */
  out: string | false;
  probeWrites?: boolean;
  webhookUrl?: string | undefined;
  /** The parsed dialect file to compare with. */
  compare?: DialectFile | undefined;
  record?: string | undefined;
  json?: boolean;
  requestsPerSecond?: number;
  fetch?: typeof fetch;
  /** Where lines go (stdout by default). */
  print?: (text: string) => void;
  /** Aborting it interrupts the run: what was created is cleaned up, and the exit code is 1. */
  signal?: AbortSignal;
  /** The limiter to wait on (the partner's shared Redis budget); default one of this process at `requestsPerSecond`. */
  rateLimiter?: RateLimiter | undefined;
}

export interface DoctorResult {
  exitCode: 0 | 1;
  checks: CheckLine[];
  notes: string[];
  requests: number;
  dialect: DialectFile | undefined;
  drift: Drift[];
  leftBehind: string[];
  interrupted: boolean;
}

/** The checks in order; false for `reached` when the service could not be read at all. */
async function runChecks(
  context: DoctorContext,
  options: DoctorOptions,
  cleanup: Cleanup,
): Promise<{ reached: boolean; interrupted: boolean }> {
  const { report, signal } = context;
  let interrupted = false;
  // One step's failure is its line; the run goes on with the next (a later check may still pass).
  const step = async (name: string, run: () => Promise<void> | void): Promise<void> => {
    if (signal.aborted) return;
    try {
      await run();
    } catch (error) {
      if (signal.aborted) interrupted = true;
      else report.add(name, 'fail', explain(error));
    }
  };
  let reached = false;
  checkConfig(context);
  await step('reach', async () => {
    reached = await checkReachAndCredentials(context);
  });
  if (reached) {
    checkClock(context);
    await step('restaurants', () => checkRestaurants(context));
    await step('dialect', () => readReservationLists(context));
    await step('webhooks', () => checkWebhooks(context));
    await step('dialect', () => readErrorBody(context));
    if (options.probeWrites) await step('writes', () => probeBooking(context, cleanup));
    if (options.probeWrites || options.webhookUrl !== undefined)
      await step(options.webhookUrl === undefined ? 'writes' : 'receiver', () =>
        probeWebhook(context, cleanup, options.webhookUrl),
      );
  }
  if (signal.aborted) {
    interrupted = true;
    report.add('run', 'fail', 'interrupted: cleaning up what this run created');
  }
  return { reached, interrupted };
}

/** The dialect learned, its drift from `--compare`, and the files asked for. */
function writeOutputs(
  context: DoctorContext,
  options: DoctorOptions,
  reached: boolean,
): { dialect: DialectFile | undefined; drift: Drift[] } {
  const { probe, report } = context;
  const dialect = reached ? probe.dialectFile(new Date().toISOString()) : undefined;
  const drift = dialect && options.compare ? compareDialects(options.compare, dialect) : [];
  if (dialect) {
    report.note(
      `dialect: ${Object.keys(dialect.points).length} points settled${dialect.unknown.length ? `; unknown: ${dialect.unknown.join(', ')}` : ''}`,
    );
    for (const [key, values] of probe.conflicts)
      report.add(
        'dialect',
        'warn',
        `answers disagree on ${key} (${[...values].join(' and ')}): left unknown`,
      );
    for (const [key, values] of probe.unlisted)
      report.add(
        'dialect',
        'warn',
        `the service answers ${key} in a form this version does not know (${[...values].join(', ')}): left unknown`,
        'the client still reads it if it can; a newer restaurant-partner-sdk may know the form',
      );
    if (options.compare) {
      for (const change of drift)
        report.add(
          'drift',
          'fail',
          `${change.point} was ${change.was}, now ${change.now} (${change.evidence})`,
          'update the dialect file, and check the code that relies on it',
        );
      const unseen = notRechecked(options.compare, dialect);
      if (unseen.length) report.note(`not re-checked this run: ${unseen.join(', ')}`);
      if (drift.length === 0) report.add('drift', 'pass', 'no settled point changed');
    }
    if (options.out !== false) {
      writeFileSync(options.out, `${JSON.stringify(dialect, null, 2)}\n`);
      report.note(`wrote ${options.out}`);
    }
  } else if (options.out !== false) report.note(`${options.out} not written: the service was not reached`);
  if (options.record !== undefined) {
    const transcript = {
      version: 1,
      recordedAt: new Date().toISOString(),
      dialect: dialect ?? null,
      exchanges: probe.exchanges,
    };
    writeFileSync(options.record, `${probe.scrubText(JSON.stringify(transcript, null, 2))}\n`);
    report.note(`wrote ${options.record}`);
  }
  return { dialect, drift };
}

/** Runs every check; never throws for what the service does (each failure is a line). */
export async function runDoctor(options: DoctorOptions): Promise<DoctorResult> {
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const secrets = [createSecrets(options.partnerId, options.token)];
  if (options.token.trim() !== options.token && options.token.trim() !== '')
    secrets.push(createSecrets(options.partnerId, options.token.trim()));
  const rate = options.requestsPerSecond ?? 1;
  const probe = new Probe({
    fetch: options.fetch ?? globalThis.fetch,
    secrets,
    baseUrl: options.baseUrl,
    gapMs: 1000 / rate,
  });
  const report = new Report(options.json ? undefined : print, (text) => probe.scrubText(text));
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const client = new PartnerClient({
    baseUrl: options.baseUrl,
    partnerId: options.partnerId,
    apiToken: options.token,
    fetch: probe.fetch,
    rateLimit: options.rateLimiter ?? { requestsPerSecond: rate },
    logger: silentLogger,
    responseValidation: 'warn',
    // One retry: a 429 from another process, a blip; a dead host is reported, not waited on.
    maxRetries: 1,
    timeoutMs: 15_000,
    deadlineMs: 60_000,
  });
  const context: DoctorContext = {
    client,
    probe,
    report,
    signal: controller.signal,
    config: { baseUrl: options.baseUrl, partnerId: options.partnerId, token: options.token },
    restaurants: [],
  };
  const cleanup = new Cleanup(context);
  const { reached, interrupted } = await runChecks(context, options, cleanup);
  const leftBehind = await cleanup.run();
  options.signal?.removeEventListener('abort', onAbort);
  await probe.settled();
  const { dialect, drift } = writeOutputs(context, options, reached);
  report.note(
    `${probe.requests} request${probe.requests === 1 ? '' : 's'} spent (${options.requestsPerSecond ?? 1}/s)`,
  );
  const exitCode = report.failed || drift.length > 0 || leftBehind.length > 0 || interrupted ? 1 : 0;
  const result: DoctorResult = {
    exitCode,
    checks: report.lines,
    notes: report.notes,
    requests: probe.requests,
    dialect,
    drift,
    leftBehind,
    interrupted,
  };
  if (options.json) print(probe.scrubText(JSON.stringify({ ok: exitCode === 0, ...result })));
  return result;
}

/** A failure in a partner's words: never a stack. */
function explain(error: unknown): string {
  if (error instanceof PartnerSdkError) return error.message.split('\n')[0]!;
  if (error instanceof Error) return `${describeFailure(error)}: ${error.message.split('\n')[0]}`;
  return String(error);
}

function fail(message: string): never {
  process.stderr.write(`restaurant-partner doctor: ${message}\n\n${usage}\n`);
  process.exit(2);
}

function readCompared(file: string): DialectFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`--compare ${file}: ${(error as Error).message}`);
  }
  const read = readDialect(parsed, 'file');
  if (!isDialectFile(parsed) || Array.isArray(read))
    fail(
      `--compare ${file}: not a dialect file${Array.isArray(read) ? ` (${read.map((p) => `${p.field}: ${p.message}`).join('; ')})` : ''}`,
    );
  return parsed;
}

/** The partner's Redis budget (loaded only with `--redis-url`: ioredis is an optional peer). */
async function sharedBudget(url: string, partnerId: string, rate: number) {
  let Redis: typeof import('ioredis').Redis;
  try {
    ({ Redis } = await import('ioredis'));
  } catch {
    fail('--redis-url needs the ioredis package (npm install ioredis)');
  }
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 5_000, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    fail(`--redis-url: cannot connect (${(error as Error).message.split('\n')[0]})`);
  }
  const { createRedisRateLimiter } = await import('../redis/rate-limiter.js');
  const limiter = createRedisRateLimiter({ redis, partnerId, requestsPerSecond: rate, logger: silentLogger });
  return {
    limiter,
    close: () =>
      redis.quit().then(
        () => undefined,
        () => redis.disconnect(),
      ),
  };
}

/** Runs `restaurant-partner doctor` with `args` (the words after the command name). */
export async function run(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        out: { type: 'string' },
        'probe-writes': { type: 'boolean', default: false },
        'webhook-url': { type: 'string' },
        compare: { type: 'string' },
        record: { type: 'string' },
        json: { type: 'boolean', default: false },
        'base-url': { type: 'string' },
        'partner-id': { type: 'string' },
        'rate-limit': { type: 'string', default: '1' },
        'redis-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const baseUrl = values['base-url'] ?? process.env.PARTNER_BASE_URL;
  const partnerId = values['partner-id'] ?? process.env.PARTNER_ID;
  const token = process.env.PARTNER_TOKEN;
  const missing = [
    !baseUrl && 'PARTNER_BASE_URL',
    !partnerId && 'PARTNER_ID',
    !token && 'PARTNER_TOKEN',
  ].filter(Boolean);
  if (missing.length) fail(`set ${missing.join(', ')} in the environment`);
  try {
    const url = new URL(baseUrl!);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    fail('PARTNER_BASE_URL must be an http or https URL');
  }
  if (values['webhook-url'] !== undefined && !/^https?:\/\/[^/]/i.test(values['webhook-url']))
    fail('--webhook-url must be an http or https URL');
  const rate = Number(values['rate-limit']);
  if (!(rate > 0 && rate <= 100))
    fail(`--rate-limit must be a number of requests per second, up to 100 (got "${values['rate-limit']}")`);
  const compare = values.compare === undefined ? undefined : readCompared(values.compare);
  const out = values.out ?? (compare ? false : 'partner-dialect.json');
  const controller = new AbortController();
  const interrupt = () => {
    if (controller.signal.aborted) return;
    process.stderr.write(
      'restaurant-partner doctor: interrupted; cleaning up (interrupt again to leave at once)\n',
    );
    controller.abort();
    process.once('SIGINT', () => process.exit(1));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const redis =
    values['redis-url'] === undefined ? undefined : await sharedBudget(values['redis-url'], partnerId!, rate);
  try {
    const result = await runDoctor({
      baseUrl: baseUrl!,
      partnerId: partnerId!,
      token: token!,
      out,
      probeWrites: values['probe-writes'],
      webhookUrl: values['webhook-url'],
      compare,
      record: values.record,
      json: values.json,
      requestsPerSecond: rate,
      signal: controller.signal,
      rateLimiter: redis?.limiter,
    });
    process.exitCode = result.exitCode;
  } catch (error) {
    // A client option refused (credentials in the URL, say): a usage error, named, without a stack.
    if (error instanceof PartnerSdkError && error.sent === 'no')
      fail(createSecrets(partnerId!, token!).scrubText(error.message));
    throw error;
  } finally {
    await redis?.close();
    process.removeListener('SIGINT', interrupt);
    process.removeListener('SIGTERM', interrupt);
  }
}
