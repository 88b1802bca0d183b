/**
 * One process of the concurrent-migration proof: connects with its driver (`DRIVER`: `pg` or
 * `postgres.js`) to DATABASE_URL, waits until the start of the next 200 ms so every process
 * migrates at about the same moment, runs `migrate()` on SCHEMA and prints its answer as JSON.
 * Environment: SDK_SOURCE (folder of src/, run under tsx), DATABASE_URL, SCHEMA, DRIVER.
 */
import { pathToFileURL } from 'node:url';

const { env } = process;
const { createPostgres } = await import(pathToFileURL(`${env.SDK_SOURCE}/postgres/index.ts`).href);

let sql;
let close;
if (env.DRIVER === 'postgres.js') {
  const postgres = (await import('postgres')).default;
  sql = postgres(env.DATABASE_URL, { max: 2, onnotice: () => undefined });
  close = () => sql.end({ timeout: 1 });
} else {
  const pg = (await import('pg')).default;
  sql = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
  close = () => sql.end();
}
await new Promise((resolve) => setTimeout(resolve, 200 - (Date.now() % 200)));
try {
  const result = await createPostgres({ sql, schema: env.SCHEMA }).migrate();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await close();
}
