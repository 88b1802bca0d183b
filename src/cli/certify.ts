/**
 * `restaurant-partner certify --webhook-url URL`: a battery against the partner's own receiver
 * before launch, each check pass, fail (with what to fix) or skipped (its token not given):
 * tokens (valid, missing, forged, re-cased, retired, the next one during a rotation), the same
 * delivery twice, deliveries out of order, a body over the limit or not JSON refused without a
 * 5xx, and how long a delivery takes to be answered.
 * @module
 */
import { RESERVATION_CONFIRMED, RESERVATION_MODIFIED } from '../resources/event-names.js';
import { buildDelivery } from '../webhooks/delivery.js';
import { DEFAULT_MAX_BODY_BYTES } from '../webhooks/options.js';
import {
  createOutput,
  createRedactor,
  httpUrl,
  runCommand,
  text,
  UsageError,
  whole,
  type CommandDefinition,
} from './cli-kit.js';
import { FORWARD_TIMEOUT_MS } from './forward.js';

const usage = `Usage: restaurant-partner certify --webhook-url URL [--old-token OLD] [--next-token NEW]
                                  [--max-body-bytes N] [--slow-ms MS] [--json]

Runs a battery of deliveries against your webhook receiver, each check pass or fail with what to
fix. The token your receiver accepts comes from PARTNER_WEBHOOK_TOKEN; --old-token is a retired
token it must refuse, --next-token a second token it must accept beside it (a rotation). A check
whose token is not given is reported as skipped. Checks: a valid delivery answered 2xx; missing,
forged, re-cased and retired tokens answered 401; the next token accepted; the same delivery twice
answered 2xx both times; deliveries out of order answered 2xx; a body over --max-body-bytes
(default ${DEFAULT_MAX_BODY_BYTES}, the SDK receiver's) and a body that is not JSON refused with a 4xx,
never a 5xx; and a delivery answered within --slow-ms (default 3000).
The receiver is sent real-looking deliveries: point it at a test database.
Exit codes: 0 every check passed (or was skipped), 1 a check failed, 2 usage.

Example:
  PARTNER_WEBHOOK_TOKEN=whk_test restaurant-partner certify --webhook-url http://localhost:3000/webhooks --old-token whk_retired`;

const definition: CommandDefinition = {
  name: 'certify',
  usage,
  options: {
    'webhook-url': { type: 'string' },
    'old-token': { type: 'string' },
    'next-token': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'slow-ms': { type: 'string' },
  },
};

/** One answer to one request of a check. */
interface Answer {
  status: number | null;
  error: string | null;
  ms: number;
}

/** The outcome of one check. */
export interface CheckResult {
  check: string;
  outcome: 'pass' | 'fail' | 'skipped';
  /** What happened, and what to fix when it failed. */
  detail: string;
  answers: Answer[];
}

const reservation = (id: number, changes: Record<string, unknown> = {}) => ({
  id,
  first_name: 'Certify',
  last_name: 'Check',
  email: null,
  phone: null,
  start_time: '2030-06-14T19:30:00+02:00',
  duration: 'PT1H30M',
  adults: 2,
  children: 0,
  comment: 'restaurant-partner certify: a test delivery',
  cancelled: false,
  cancelled_at: null,
  confirmed: true,
  confirmed_at: '2030-06-01T10:00:00+02:00',
  confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS' as const,
  arrived: false,
  arrived_at: null,
  no_show: false,
  no_show_at: null,
  language: null,
  metadata: {},
  ...changes,
});

/** A reservation id unlikely to be one of the receiver's own. */
const testId = () => 900_000_000 + Math.floor(Math.random() * 99_999_999);

/** Sends one POST and times the answer; never throws. */
async function send(url: string, body: string, authorization: string | undefined): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'restaurant-partner-service-webhooks',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, error: null, ms: performance.now() - started };
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return { status: null, error: code ?? (error as Error).message, ms: performance.now() - started };
  }
}

const is2xx = (answer: Answer) => answer.status !== null && answer.status >= 200 && answer.status < 300;
const shown = (answer: Answer) =>
  answer.status === null ? `no answer (${answer.error})` : String(answer.status);

/** `Bearer TOKEN` with the letters' case swapped (undefined when the token has no letter). */
function recased(token: string): string | undefined {
  const swapped = [...token]
    .map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()))
    .join('');
  return swapped === token ? undefined : swapped;
}

/** A check's verdict: pass with what happened, or fail with what to fix. */
function verdict(name: string, answers: Answer[], passed: boolean, detail: string, fix: string): CheckResult {
  return {
    check: name,
    outcome: passed ? 'pass' : 'fail',
    detail: passed ? detail : `${detail}: ${fix}`,
    answers,
  };
}

/** A body over the limit and one that is not JSON: refused with a 4xx, never a 5xx. */
async function refusals(url: string, token: string, maxBodyBytes: number): Promise<CheckResult[]> {
  const padding = 'x'.repeat(maxBodyBytes + 1);
  const body = buildDelivery(
    {
      event: RESERVATION_MODIFIED,
      restaurantId: 1,
      reservation: reservation(testId(), { comment: padding }),
    },
    token,
  ).body;
  const large = await send(url, body, `Bearer ${token}`);
  const refused = (answer: Answer) => answer.status !== null && answer.status >= 400 && answer.status < 500;
  const notJson = await send(url, `{"event": "${RESERVATION_CONFIRMED}", `, `Bearer ${token}`);
  return [
    verdict(
      'body over the limit',
      [large],
      refused(large),
      `a body of ${maxBodyBytes + 1}+ bytes answered ${shown(large)}`,
      'refuse a body over your limit with 413 before reading it all, never 5xx (the service would retry it)',
    ),
    verdict(
      'body not JSON',
      [notJson],
      refused(notJson),
      `a body that is not JSON answered ${shown(notJson)}`,
      'refuse it with 400, never 5xx (the service would retry it for nothing)',
    ),
  ];
}

/** Every check, in order, against `url`. */
export async function certify(options: {
  url: string;
  token: string;
  oldToken?: string | undefined;
  nextToken?: string | undefined;
  maxBodyBytes: number;
  slowMs: number;
}): Promise<CheckResult[]> {
  const { url, token } = options;
  const delivery = (event: string, id: number, changes: Record<string, unknown> = {}, createdAt?: string) =>
    buildDelivery({ event, restaurantId: 1, reservation: reservation(id, changes), createdAt }, token).body;
  const results: CheckResult[] = [];
  const check = (name: string, answers: Answer[], passed: boolean, detail: string, fix: string) =>
    results.push({
      check: name,
      outcome: passed ? 'pass' : 'fail',
      detail: passed ? detail : `${detail}: ${fix}`,
      answers,
    });
  const skip = (name: string, why: string) =>
    results.push({ check: name, outcome: 'skipped', detail: why, answers: [] });
  const refusedAs401 = async (name: string, authorization: string | undefined, what: string) => {
    const answer = await send(url, delivery(RESERVATION_CONFIRMED, testId()), authorization);
    check(
      name,
      [answer],
      answer.status === 401,
      `${what} answered ${shown(answer)}`,
      'refuse it with 401 (compare the whole token, case included, and accept only the current ones)',
    );
  };

  const valid = await send(url, delivery(RESERVATION_CONFIRMED, testId()), `Bearer ${token}`);
  check(
    'valid delivery',
    [valid],
    is2xx(valid),
    `answered ${shown(valid)}`,
    'a delivery with the right token must be answered 2xx (check the token in PARTNER_WEBHOOK_TOKEN and the URL)',
  );
  await refusedAs401('missing token', undefined, 'a delivery without Authorization');
  await refusedAs401(
    'forged token',
    `Bearer forged-${crypto.randomUUID()}`,
    'a delivery with a made-up token',
  );
  const swapped = recased(token);
  if (swapped)
    await refusedAs401('re-cased token', `Bearer ${swapped}`, 'the token with its letters in the other case');
  else skip('re-cased token', 'the token has no letters to re-case');
  if (options.oldToken)
    await refusedAs401('retired token', `Bearer ${options.oldToken}`, 'the retired token (--old-token)');
  else skip('retired token', 'no --old-token given');
  if (options.nextToken) {
    const next = await send(url, delivery(RESERVATION_CONFIRMED, testId()), `Bearer ${options.nextToken}`);
    check(
      'next token',
      [next],
      is2xx(next),
      `the next token (--next-token) answered ${shown(next)}`,
      'during a rotation accept the current and the next token both',
    );
  } else skip('next token', 'no --next-token given');

  const twice = delivery(RESERVATION_CONFIRMED, testId());
  const first = await send(url, twice, `Bearer ${token}`);
  const again = await send(url, twice, `Bearer ${token}`);
  check(
    'same delivery twice',
    [first, again],
    is2xx(first) && is2xx(again),
    `answered ${shown(first)} then ${shown(again)}`,
    'a delivery sent again (same id) must be answered 2xx and handled once: drop it by its id, do not refuse it',
  );

  const id = testId();
  const later = await send(
    url,
    delivery(RESERVATION_MODIFIED, id, { adults: 4 }, '2030-06-02T12:00:00Z'),
    `Bearer ${token}`,
  );
  const earlier = await send(
    url,
    delivery(RESERVATION_CONFIRMED, id, {}, '2030-06-02T11:00:00Z'),
    `Bearer ${token}`,
  );
  check(
    'out of order',
    [later, earlier],
    is2xx(later) && is2xx(earlier),
    `a modification then the older confirmation answered ${shown(later)} then ${shown(earlier)}`,
    'deliveries come in any order: answer 2xx, and keep the newest state (compare created_at or re-read the reservation)',
  );

  results.push(...(await refusals(url, token, options.maxBodyBytes)));
  const slowest = results
    .flatMap((result) => result.answers)
    .reduce((max, answer) => Math.max(max, answer.ms), valid.ms);
  check(
    'answer time',
    [valid],
    valid.ms <= options.slowMs,
    `a valid delivery was answered in ${Math.round(valid.ms)} ms (slowest answer ${Math.round(slowest)} ms)`,
    `answer within ${options.slowMs} ms: acknowledge first, do the work after (a queue)`,
  );
  return results;
}

/** Runs `restaurant-partner certify` with `args`. */
export async function run(args: string[]): Promise<void> {
  await runCommand(definition, args, async (values) => {
    const url = httpUrl(text(values, 'webhook-url'), '--webhook-url');
    const token = process.env.PARTNER_WEBHOOK_TOKEN;
    if (!token) throw new UsageError('set PARTNER_WEBHOOK_TOKEN to the token your receiver accepts');
    const oldToken = text(values, 'old-token');
    const nextToken = text(values, 'next-token');
    const redactor = createRedactor([token, oldToken, nextToken]);
    const print = createOutput(values.json === true, redactor.redact);
    const results = await certify({
      url,
      token,
      oldToken,
      nextToken,
      maxBodyBytes: whole(values, 'max-body-bytes', DEFAULT_MAX_BODY_BYTES, 1, 64 * 1024 * 1024),
      slowMs: whole(values, 'slow-ms', 3000, 1, FORWARD_TIMEOUT_MS),
    });
    for (const result of results)
      print(result, `${result.outcome.toUpperCase().padEnd(7)} ${result.check}: ${result.detail}`);
    const failed = results.filter((result) => result.outcome === 'fail').length;
    print(
      {
        summary: true,
        passed: results.filter((r) => r.outcome === 'pass').length,
        failed,
        skipped: results.filter((r) => r.outcome === 'skipped').length,
      },
      failed === 0
        ? `Certified: every check passed against ${url}`
        : `${failed} check${failed === 1 ? '' : 's'} failed against ${url}`,
    );
    return failed === 0 ? 0 : 1;
  });
}
