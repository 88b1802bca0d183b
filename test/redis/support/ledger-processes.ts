/**
 * Real processes of the shared-ledger proofs (ledger-process.mjs beside this file), started with
 * their environment and read line by line.
 */
import { fileURLToPath } from 'node:url';
import { startLineProcess } from '../../support/line-process.js';

/** Starts test/redis/support/ledger-process.mjs with `env` on the Redis at `redisUrl`. */
export function startLedgerProcess(redisUrl: string, env: Record<string, string>) {
  return startLineProcess(fileURLToPath(new URL('./ledger-process.mjs', import.meta.url)), {
    REDIS_URL: redisUrl,
    ...env,
  });
}
