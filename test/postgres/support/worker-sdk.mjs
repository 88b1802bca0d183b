/**
 * What the Postgres proofs' booking workers load (ledger-worker.mjs, ledger-jobs-worker.mjs,
 * cut-worker.mjs): the SDK from its source (SDK_SOURCE, run under tsx), a node-postgres Pool on
 * DATABASE_URL, and a PartnerClient booking through the Postgres ledger in SCHEMA against
 * BASE_URL as PARTNER_ID / API_TOKEN, without rate limit or logs. The input every worker books.
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const { env } = process;
const entry = (name) => import(pathToFileURL(`${env.SDK_SOURCE}/${name}.ts`).href);
const { PartnerClient } = await entry('index');
export const { createPostgres } = await entry('postgres/index');

/** The create every worker makes (at restaurant 1 unless the job names another). */
export const bookingInput = { start_time: '2026-12-05T19:30:00', adults: 2 };

/** The worker's own pool on DATABASE_URL (a SIGKILL ends it with the process). */
export const workerPool = () => new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 });

/**
 * A client whose booking ledger is the Postgres ledger on `sql` in SCHEMA; `options` adds to or
 * overrides the defaults (restaurant 1's zone is known, so a create spends no request on it).
 */
export function ledgerClient(sql, options = {}) {
  return new PartnerClient({
    baseUrl: env.BASE_URL,
    partnerId: env.PARTNER_ID,
    apiToken: env.API_TOKEN,
    rateLimit: false,
    logLevel: 'off',
    bookingLedger: createPostgres({ sql, schema: env.SCHEMA }).bookingLedger(),
    restaurantTimezones: { 1: 'Europe/Brussels' },
    ...options,
  });
}
