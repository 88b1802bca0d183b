/**
 * One partner process syncing into Postgres for the chaos proof (test/postgres/sync-chaos.test.ts):
 * its own PartnerClient, a receiver on PORT (the webhook's address, the same for every run), and
 * `createReservationSync({ ...db.mirror({ onChange }) })` whose onChange also writes the partner's
 * own row (`applied`) in the sync's transaction. It passes four commit points per change: before
 * the transaction, inside it before and after the partner's write (so before COMMIT), and after
 * COMMIT. With KILL_AT=n it SIGKILLs itself at the n-th point it passes, and says which first.
 *
 * Prints {"ready": true} once it runs, {"killing": point} just before it dies, {"settled": true}
 * after a "settle" line on stdin (a full read of every restaurant).
 *
 * Environment: SDK_SOURCE (folder of src/, run under tsx), DATABASE_URL, SCHEMA, BASE_URL,
 * PARTNER_ID, API_TOKEN, WEBHOOK_TOKEN, PORT, RESTAURANT_IDS, HOLDER, KILL_AT (optional).
 */
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const env = process.env;
const entry = (name) => pathToFileURL(`${env.SDK_SOURCE}/${name}.ts`).href;
const { PartnerClient } = await import(entry('index'));
const { createPostgres } = await import(entry('postgres/index'));
const { createReservationSync } = await import(entry('sync/index'));
const { createWebhookReceiver } = await import(entry('webhooks/index'));
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const killAt = env.KILL_AT ? Number(env.KILL_AT) : Number.POSITIVE_INFINITY;
let passed = 0;
/** A commit point: the KILL_AT-th one is this process's last. */
const point = (name) => {
  if (++passed !== killAt) return;
  // Written synchronously, so the test knows where it died even though nothing runs after.
  print({ killing: name });
  process.kill(process.pid, 'SIGKILL');
};

const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 });
pool.on('error', () => undefined);
const db = createPostgres({ sql: pool, schema: env.SCHEMA });
const mirror = db.mirror({
  onChange: async (change, { tx }) => {
    point('in the transaction, before the partner write');
    await tx.query(
      `insert into ${JSON.stringify(env.SCHEMA)}.applied (reservation_id, revision, kind) values ($1, $2, $3)`,
      [change.reservation.id, change.revision, change.kind],
    );
    point('in the transaction, after the partner write (before COMMIT)');
  },
});
const store = {
  ...mirror.store,
  async putWith(record, now, work) {
    point('before the transaction');
    const written = await mirror.store.putWith(record, now, work);
    point('after COMMIT');
    return written;
  },
};

const client = new PartnerClient({
  baseUrl: env.BASE_URL,
  partnerId: env.PARTNER_ID,
  apiToken: env.API_TOKEN,
  logLevel: 'off',
  rateLimit: { requestsPerSecond: 100 },
});
const receiver = createWebhookReceiver({ tokens: [env.WEBHOOK_TOKEN], logger: false });
const sync = createReservationSync({
  client,
  store,
  onChange: mirror.onChange,
  holder: env.HOLDER,
  restaurantIds: env.RESTAURANT_IDS.split(',').map(Number),
  reconcile: { intervalMs: 2000, budgetShare: 1 },
  logger: { warn: () => undefined, error: () => undefined },
});
sync.attach(receiver);
const server = createServer(receiver.nodeHandler());
await new Promise((resolve) => server.listen(Number(env.PORT), '127.0.0.1', resolve));
await sync.start();
print({ ready: true });

// Listeners are not awaited: a failure ends the worker with it, for the test to see.
const fail = (error) => {
  console.error(error);
  process.exit(1);
};
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line !== 'settle') return;
  sync.settled().then(() => print({ settled: true }), fail);
});
process.on('SIGTERM', () => {
  const stop = async () => {
    await sync.stop();
    server.close();
    await pool.end();
    process.exit(0);
  };
  stop().catch(fail);
});
