/**
 * The booking ledger in the partner's PostgreSQL: every rule of the memory and Redis ledgers
 * (claims are leases renewed while the create runs, a fence before each send, a lapsed claim
 * read as an ambiguous hold, key -> reservation id, another fingerprint refused), shared by every
 * process on the database, and durable: a key it never held was never sent, so a create with
 * the caller's own key skips the look-up by key and costs one request.
 *
 * Leases are on the database's clock (`clock_timestamp()`), so processes whose clocks disagree
 * share them fairly; holds (`until`) are on the client's clock, as the contract says.
 *
 * A claim may be made inside the caller's own transaction (`create(..., { tx })`): the entry is
 * written in it and commits with the caller's rows. What must survive that transaction rolling
 * back (the fence before the POST, its renewals, the outcome) is written outside it, in
 * `booking_ledger_sent`, on the ledger's own connection. A claim reads both tables and believes
 * the row written last.
 * @module
 */
import { InputValidationError } from '../errors.js';
import {
  claimAnswer,
  type BookingLedger,
  type BookingLedgerClaimed,
  type BookingLedgerEntry,
} from '../lib/booking-ledger.js';
import { hasOneConnection, toExecutor, type SqlExecutor, type SqlSource } from './executor.js';
import { migratedExecutor, schemaIdentifier } from './migrations.js';

interface Row {
  state: BookingLedgerEntry['state'];
  fingerprint: string;
  token: string | null;
  until_ms: string | null;
  reservation_id: string | null;
  live: boolean;
}

function entryOf(row: Row): BookingLedgerEntry {
  const until = Number(row.until_ms ?? 0);
  if (row.state === 'booked')
    return { state: 'booked', fingerprint: row.fingerprint, reservationId: String(row.reservation_id) };
  if (row.state === 'running')
    return { state: 'running', fingerprint: row.fingerprint, token: String(row.token), until };
  return { state: 'ambiguous', fingerprint: row.fingerprint, until };
}

/** The columns of an entry, as `$2..$6` of an upsert: state, fingerprint, token, until, reservation id. */
function columnsOf(entry: BookingLedgerEntry): unknown[] {
  return [
    entry.state,
    entry.fingerprint,
    entry.state === 'running' ? entry.token : null,
    entry.state === 'booked' ? null : String(entry.until),
    entry.state === 'booked' ? entry.reservationId : null,
  ];
}

/** Options of `bookingLedger()` (internal: the entry passes its database). */
export interface PostgresLedgerOptions {
  executor: SqlExecutor;
  schema: string;
}

/** The Postgres booking ledger over `executor`, in `schema`. */
export function createPostgresBookingLedger({ executor, schema }: PostgresLedgerOptions): BookingLedger {
  const id = schemaIdentifier(schema);
  const db = migratedExecutor(executor, schema);
  const main = `${id}.booking_ledger`;
  const sent = `${id}.booking_ledger_sent`;
  /** Claims made inside a caller's transaction, by token: their renewals and outcome go outside it too. */
  const inTransaction = new Map<string, { tx: SqlExecutor; fingerprint: string }>();

  const columns = `state, fingerprint, token, until_ms::text as until_ms, reservation_id,
    coalesce(lease_ends_at > clock_timestamp(), false) as live`;
  // Both tables' rows of a slot, the one written last first.
  const readSlot = `select * from (
      select ${columns}, updated_at from ${main} where slot = $1
      union all
      select ${columns}, updated_at from ${sent} where slot = $1
    ) as rows order by updated_at desc`;
  const upsert = (table: string, leaseMs: string) => `insert into ${table} as t
      (slot, state, fingerprint, token, until_ms, reservation_id, lease_ends_at, updated_at)
      values ($1, $2, $3, $4, $5::bigint, $6, ${leaseMs}, clock_timestamp())
    on conflict (slot) do update set state = excluded.state, fingerprint = excluded.fingerprint,
      token = excluded.token, until_ms = excluded.until_ms, reservation_id = excluded.reservation_id,
      lease_ends_at = excluded.lease_ends_at, updated_at = excluded.updated_at`;
  const leaseFor = (param: string) => `clock_timestamp() + (${param}::float8 * interval '1 millisecond')`;

  const write = (q: SqlExecutor, table: string, slot: string, entry: BookingLedgerEntry, leaseMs?: number) =>
    q.query(upsert(table, leaseMs === undefined ? 'null' : leaseFor('$7')), [
      slot,
      ...columnsOf(entry),
      ...(leaseMs === undefined ? [] : [leaseMs]),
    ]);

  /** Settles `slot` in the main table on `q` (in a transaction), as the memory ledger does. */
  async function settleMain(
    q: SqlExecutor,
    slot: string,
    token: string | undefined,
    outcome: BookingLedgerEntry | undefined,
  ) {
    const { rows } = await q.query<Row>(`select ${columns} from ${main} where slot = $1 for update`, [slot]);
    const current = rows[0];
    const mine = current?.state === 'running' && current.token === token;
    // Never over another claimer's live claim; a release only undoes this claimer's own claim.
    if (current?.live && current.state === 'running' && !mine) return;
    if (outcome === undefined) {
      if (mine) await q.query(`delete from ${main} where slot = $1`, [slot]);
      return;
    }
    await write(q, main, slot, outcome);
  }

  return {
    durable: true,
    acceptTransaction(tx) {
      const refuse = (message: string) => {
        throw new InputValidationError([{ field: 'tx', path: ['tx'], code: 'invalid_option', message }]);
      };
      try {
        toExecutor(tx as SqlSource);
      } catch {
        refuse(
          'expected your transaction: a node-postgres client inside BEGIN, a postgres.js transaction sql, a PGlite transaction, or a SqlExecutor',
        );
      }
      if (hasOneConnection(executor)) {
        refuse(
          "the ledger's database has one connection (a PGlite instance or a node-postgres Client): what may have been sent is recorded outside your transaction, on another connection; give createPostgres a Pool",
        );
      }
    },

    async claim(slot, claim): Promise<BookingLedgerEntry | BookingLedgerClaimed> {
      const attempt = async (q: SqlExecutor): Promise<BookingLedgerEntry | BookingLedgerClaimed> => {
        // One claimer of a slot at a time; a claim inside a caller's transaction holds the slot
        // until that transaction ends. Another claimer is told the key is running, and waits.
        const { rows: lock } = await q.query<{ locked: boolean }>(
          `select pg_try_advisory_xact_lock(hashtext('restaurant-partner-sdk ledger'), hashtext($1)) as locked`,
          [slot],
        );
        if (!lock[0]?.locked)
          return { state: 'running', fingerprint: claim.fingerprint, token: '', until: claim.now };
        const { rows } = await q.query<Row>(readSlot, [slot]);
        const newest = rows[0];
        const stops = claimAnswer(newest && entryOf(newest), claim, newest?.live ?? false);
        if (stops) return stops;
        // Nothing sent yet: a lapse before the holder's fence frees the key at once.
        const entry = {
          state: 'running',
          fingerprint: claim.fingerprint,
          token: claim.token,
          until: claim.now,
        } as const;
        await write(q, main, slot, entry, claim.leaseMs);
        return { state: 'claimed', used: rows.length > 0 };
      };
      if (claim.tx === undefined) return db.transaction(attempt);
      const tx = migratedExecutor(toExecutor(claim.tx as SqlSource), schema);
      const answer = await attempt(tx);
      if (answer.state === 'claimed') inTransaction.set(claim.token, { tx, fingerprint: claim.fingerprint });
      return answer;
    },

    async renew(slot, token, leaseMs, until) {
      const held = inTransaction.get(token);
      if (held) {
        // Outside the caller's transaction: the fence holds whatever that transaction does.
        const { rows } = await db.query(
          `${upsert(sent, leaseFor('$7'))}
          where t.token = $4 or t.state <> 'running' or t.lease_ends_at <= clock_timestamp()
          returning 1 as renewed`,
          [slot, 'running', held.fingerprint, token, String(until), null, leaseMs],
        );
        return rows.length > 0;
      }
      const { rows } = await db.query(
        `update ${main} set lease_ends_at = ${leaseFor('$3')}, until_ms = $4::bigint, updated_at = clock_timestamp()
          where slot = $1 and state = 'running' and token = $2 returning 1 as renewed`,
        [slot, token, leaseMs, String(until)],
      );
      return rows.length > 0;
    },

    async settle(slot, token, outcome) {
      // Every outcome is kept (a durable ledger forgets no booking); `keepMs` does not apply.
      const held = token === undefined ? undefined : inTransaction.get(token);
      if (!held) return db.transaction((q) => settleMain(q, slot, token, outcome));
      inTransaction.delete(token!);
      // Outside first: the outcome survives the caller's transaction rolling back.
      if (outcome === undefined)
        await db.query(`delete from ${sent} where slot = $1 and token = $2`, [slot, token]);
      else await write(db, sent, slot, outcome);
      await settleMain(held.tx, slot, token, outcome);
    },
  };
}
