/**
 * `db.mirror()`: the sync's view kept in two tables with no code of the partner's. Each change
 * upserts its reservation's row in `reservations` (a column per field under its wire name) and
 * appends one row to `reservation_changes`, inside the transaction that records the change in the
 * sync store: both tables move with the sync's state or not at all. The upsert is guarded by the
 * change's revision, never by a clock, so changes within one second (or clocks that disagree)
 * cannot undo each other.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import type { ChangeContext, ReservationChange } from '../sync/changes.js';
import type { TransactionalSyncStore } from '../sync/store.js';
import type { SqlExecutor } from './executor.js';
import { migratedExecutor, schemaIdentifier } from './migrations.js';

/** The mirror's columns for a reservation's fields, with their SQL types (migration `0002_sync`). */
const FIELDS = [
  ['id', 'bigint'],
  ['first_name', 'text'],
  ['last_name', 'text'],
  ['email', 'text'],
  ['phone', 'text'],
  ['start_time', 'text'],
  ['duration', 'text'],
  ['adults', 'integer'],
  ['children', 'integer'],
  ['comment', 'text'],
  ['cancelled', 'boolean'],
  ['cancelled_at', 'text'],
  ['confirmed', 'boolean'],
  ['confirmed_at', 'text'],
  ['confirmation_mode', 'text'],
  ['arrived', 'boolean'],
  ['arrived_at', 'text'],
  ['no_show', 'boolean'],
  ['no_show_at', 'text'],
  ['language', 'text'],
  ['metadata', 'jsonb'],
] as const satisfies ReadonlyArray<readonly [keyof Reservation, string]>;

/** The reservation fields the mirror keeps, one column each. */
export const MIRRORED_FIELDS: readonly (keyof Reservation)[] = FIELDS.map(([name]) => name);

/** What `onChange` is given by `createReservationSync` with a transactional Postgres store. */
export type PostgresOnChange = (
  change: ReservationChange,
  context: ChangeContext<SqlExecutor>,
) => void | Promise<void>;

/** What `db.mirror()` returns: options to spread into `createReservationSync`. */
export interface MirrorOptions {
  store: TransactionalSyncStore<SqlExecutor>;
  onChange: PostgresOnChange;
}

/** Writes one change into the mirror's two tables in `schema`, through `tx`. */
export function createMirrorWriter(
  schema: string,
): (change: ReservationChange, tx: SqlExecutor) => Promise<void> {
  const id = schemaIdentifier(schema);
  const columns = ['restaurant_id', 'revision', 'synced_at', ...FIELDS.map(([name]) => name)];
  const placeholders = [
    '$1::bigint',
    '$2::integer',
    '$3::timestamptz',
    ...FIELDS.map(([, type], index) => `$${index + 4}::${type}`),
  ];
  const upsert = `insert into ${id}.reservations as mirrored (${columns.join(', ')})
    values (${placeholders.join(', ')})
    on conflict (restaurant_id, id) do update set ${columns
      .filter((column) => column !== 'restaurant_id' && column !== 'id')
      .map((column) => `${column} = excluded.${column}`)
      .join(', ')}
    where mirrored.revision < excluded.revision`;
  const append = `insert into ${id}.reservation_changes
    (restaurant_id, reservation_id, revision, kind, source, before, after, detected_at)
    values ($1::bigint, $2::bigint, $3::integer, $4::text, $5::text, $6::jsonb, $7::jsonb, $8::timestamptz)
    on conflict (restaurant_id, reservation_id, revision) do nothing`;

  return async (change, transaction) => {
    // A missing table of the mirror is reported as the migrate step.
    const tx = migratedExecutor(transaction, schema);
    const fields = change.reservation as unknown as Record<string, unknown>;
    await tx.query(upsert, [
      change.restaurantId,
      change.revision,
      change.detectedAt,
      ...FIELDS.map(([name, type]) => {
        const value = fields[name] ?? null;
        return type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
      }),
    ]);
    await tx.query(append, [
      change.restaurantId,
      change.reservation.id,
      change.revision,
      change.kind,
      change.source,
      change.previous === null ? null : JSON.stringify(change.previous),
      JSON.stringify(change.reservation),
      change.detectedAt,
    ]);
  };
}

/**
 * The options of a mirror: `store`, and an `onChange` that writes the mirror, then runs the
 * partner's own `onChange` (if any) in the same transaction.
 */
export function mirrorOptions(
  store: TransactionalSyncStore<SqlExecutor>,
  schema: string,
  then?: PostgresOnChange,
): MirrorOptions {
  const write = createMirrorWriter(schema);
  return {
    store,
    async onChange(change, context) {
      if (!context?.tx)
        throw new TypeError(
          "the mirror's onChange runs in the sync store's transaction: use db.mirror()'s store",
        );
      await write(change, context.tx);
      await then?.(change, context);
    },
  };
}
