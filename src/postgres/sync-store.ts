/**
 * `db.syncStore()`: the reservation sync's state in the partner's PostgreSQL, shared by every
 * process on the database, and transactional: the sync hands each change to `onChange` inside
 * the transaction that writes its record (`putWith`), so the partner's writes and the sync's
 * state commit together or not at all. Records are written by compare-and-set on their revision
 * (an `update ... where revision = $previous`, an `insert ... on conflict do nothing` for the
 * first): two processes announcing the same change at once serialize on the record's row, and the
 * second one finds it taken and rolls back. Leases are rows with their holder and end, on the
 * sync's clock.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import type { SyncRecord, TransactionalSyncStore } from '../sync/store.js';
import type { SqlExecutor } from './executor.js';
import { migratedExecutor, schemaIdentifier } from './migrations.js';

/** A jsonb value as the drivers answer it: parsed (node-postgres, PGlite) or text (some setups). */
const fromJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** The sync store on `executor`, in `schema`. Its tables come with migration `0002_sync`. */
export function createPostgresSyncStore(
  executor: SqlExecutor,
  schema: string,
): TransactionalSyncStore<SqlExecutor> {
  const id = schemaIdentifier(schema);
  const records = `${id}.sync_records`;
  const leases = `${id}.sync_leases`;
  // The store's own statements report a missing table as the migrate step; the partner's work in
  // putWith runs on the bare transaction, so its own errors reach it unchanged.
  const ours = migratedExecutor(executor, schema);

  /** Writes `record` if the stored revision is the one before; true when it wrote. */
  async function compareAndSet(sql: SqlExecutor, record: SyncRecord): Promise<boolean> {
    const values = [
      record.restaurantId,
      record.reservation.id,
      record.revision,
      JSON.stringify(record.reservation),
      record.observedAt,
      record.expiresAt,
    ];
    const { rows } =
      record.revision === 1
        ? await sql.query(
            `insert into ${records} (restaurant_id, reservation_id, revision, reservation, observed_at, expires_at)
             values ($1::bigint, $2::bigint, $3::integer, $4::jsonb, $5::float8, $6::float8) on conflict do nothing returning revision`,
            values,
          )
        : await sql.query(
            `update ${records} set revision = $3::integer, reservation = $4::jsonb, observed_at = $5::float8, expires_at = $6::float8
             where restaurant_id = $1::bigint and reservation_id = $2::bigint and revision = $3::integer - 1 returning revision`,
            values,
          );
    return rows.length === 1;
  }

  return {
    async get(restaurantId, reservationId) {
      const { rows } = await ours.query<{
        revision: number;
        reservation: unknown;
        observed_at: number;
        expires_at: number;
      }>(
        `select revision, reservation, observed_at, expires_at from ${records}
         where restaurant_id = $1::bigint and reservation_id = $2::bigint`,
        [restaurantId, reservationId],
      );
      const row = rows[0];
      if (!row) return undefined;
      return {
        restaurantId,
        reservation: fromJson<Reservation>(row.reservation),
        observedAt: Number(row.observed_at),
        revision: Number(row.revision),
        expiresAt: Number(row.expires_at),
      };
    },
    put: (record) => compareAndSet(ours, record),
    putWith: (record, _now, work) =>
      executor.transaction(async (tx) => {
        if (!(await compareAndSet(migratedExecutor(tx, schema), record))) return false;
        await work(tx);
        return true;
      }),
    async claim(key, holder, now, ttlMs) {
      // A lease granted "after" now (the clock was set back) lasts its length from now, not until
      // the clock catches up: the same rule as the memory store's.
      await ours.query(
        `update ${leases} set until = $2::float8 + (until - granted_at), granted_at = $2::float8
         where key = $1::text and granted_at > $2::float8`,
        [key, now],
      );
      const { rows } = await ours.query(
        `insert into ${leases} as lease (key, holder, granted_at, until)
         values ($1::text, $2::text, $3::float8, $3::float8 + $4::float8)
         on conflict (key) do update set holder = excluded.holder, granted_at = excluded.granted_at, until = excluded.until
         where lease.holder = excluded.holder or lease.until <= excluded.granted_at
         returning holder`,
        [key, holder, now, ttlMs],
      );
      return rows.length === 1;
    },
    async release(key, holder) {
      await ours.query(`delete from ${leases} where key = $1::text and holder = $2::text`, [key, holder]);
    },
  };
}
