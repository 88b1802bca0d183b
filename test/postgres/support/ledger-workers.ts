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

/** Starts test/postgres/support/ledger-jobs-worker.mjs (jobs `go <key> <restaurant>`, one at a time) with `env`. */
export function startJobsWorker(env: Record<string, string>) {
  return startLineProcess(fileURLToPath(new URL('./ledger-jobs-worker.mjs', import.meta.url)), env);
}
