/**
 * Child process of deep-json.test.ts: asks the URL given for the profile once, with
 * `maxResponseBytes` of 10 MiB, and prints how the call ended and the process's peak resident
 * memory (`maxRSS`, which sees inside a synchronous `JSON.parse` where a sampling timer cannot).
 */
import { PartnerClient, silentLogger } from '../../../src/index.js';

const client = new PartnerClient({
  baseUrl: process.argv[2]!,
  partnerId: 'partner',
  apiToken: 'token-of-the-partner',
  rateLimit: false,
  maxRetries: 0,
  timeoutMs: 60_000,
  maxResponseBytes: 10 * 1024 * 1024,
  logger: silentLogger,
});
const baselineBytes = process.resourceUsage().maxRSS * 1024;
const outcome = await client.profile.retrieve().then(
  () => ({ name: 'ok', message: '' }),
  (error: Error) => ({ name: error.name, message: error.message }),
);
process.stdout.write(
  `${JSON.stringify({ ...outcome, baselineBytes, peakBytes: process.resourceUsage().maxRSS * 1024 })}\n`,
);
