// Runs every example in examples/ (against the embedded fake) and fails when one fails.
// Started through `npm run examples`, so `npx tsx` runs under the project's pinned Node.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { startPostgresServer } from './postgres-server.mjs';

/** Examples that run against a real PostgreSQL: a throwaway cluster is started for them, its URL in DATABASE_URL. */
const NEEDS_POSTGRES = new Set(['sync-to-postgres.ts']);

const only = process.argv.slice(2);
const examples = readdirSync(new URL('../examples/', import.meta.url))
  .filter((name) => /\.(ts|sh)$/.test(name) && !name.endsWith('.test.ts'))
  .filter((name) => only.length === 0 || only.some((wanted) => name.includes(wanted)))
  .sort();

const failed = [];
let postgres;
for (const name of examples) {
  const started = performance.now();
  const [command, args] = name.endsWith('.sh')
    ? ['bash', [`examples/${name}`]]
    : ['npx', ['tsx', `examples/${name}`]];
  // Live credentials must never leak into CI's example runs: examples fall back to the fake without them.
  const env = { ...process.env, PARTNER_BASE_URL: '', PARTNER_ID: '', PARTNER_TOKEN: '', DATABASE_URL: '' };
  if (NEEDS_POSTGRES.has(name)) {
    postgres ??= await startPostgresServer();
    env.DATABASE_URL = postgres.url;
  }
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    console.log(`ok   ${name} (${seconds}s)`);
  } else {
    failed.push(name);
    console.log(`FAIL ${name} (${seconds}s, exit ${result.status ?? result.signal})`);
    console.log(result.stdout);
    console.error(result.stderr);
  }
}
await postgres?.stop();
console.log(`${examples.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
