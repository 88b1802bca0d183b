/**
 * Real booking workers of the Postgres crash proofs (ledger-worker.mjs beside this file), started
 * with their environment and read line by line.
 */
import { fileURLToPath } from 'node:url';
import { startLineProcess } from '../../support/line-process.js';

/** Starts test/postgres/support/ledger-worker.mjs with `env`. */
export function startLedgerWorker(env: Record<string, string>) {
  return startLineProcess(fileURLToPath(new URL('./ledger-worker.mjs', import.meta.url)), env);
}
