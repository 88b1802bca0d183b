/**
 * Child process of nothing-outlives.test.ts: sends `count` calls with `timeoutMs` to the URL given,
 * prints when every call has settled (and how), then does nothing more, and prints when the process
 * exits: anything a call left behind (a socket, a timer, a body still being read) would keep it
 * alive in between. (Measured here rather than by the parent, which would also count the teardown
 * of the process and of tsx's loader thread on a loaded machine.)
 */
import { PartnerClient, silentLogger } from '../../../src/index.js';

const [baseUrl, count, timeoutMs] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const client = new PartnerClient({
  baseUrl,
  partnerId: 'partner',
  apiToken: 'token-of-the-partner',
  rateLimit: false,
  maxRetries: 0,
  timeoutMs,
  logger: silentLogger,
});
const outcomes = await Promise.allSettled(Array.from({ length: count }, () => client.profile.retrieve()));
const names = outcomes.map((outcome) =>
  outcome.status === 'fulfilled' ? 'ok' : (outcome.reason as Error).name,
);
const settledAt = Date.now();
// Pipes are written synchronously on Linux and macOS, so this line is out before the process ends.
process.on('exit', () =>
  process.stdout.write(`${JSON.stringify({ settledAt, exitAt: Date.now(), names })}\n`),
);
