/**
 * Reads the mirror's two tables back, and checks them against the service's truth: the
 * `reservations` rows field by field (a field the service leaves out is a NULL column), and the
 * `reservation_changes` rows of each reservation as one chain: revisions 1, 2, 3 ... in `id`
 * order, each `before` the `after` of the one before, the last `after` the mirrored row.
 */
import { expect } from 'vitest';
import type { Reservation } from 'restaurant-partner-sdk';

export type Query = <Row = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<Row[]>;

/** The fields present (not null, not undefined), so that an absent field and a NULL column compare equal. */
export function present(reservation: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(reservation).filter(([, value]) => value !== null && value !== undefined),
  );
}

const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

/** The `reservations` rows, keyed `restaurant:id`, as reservations (without the mirror's own columns). */
export async function mirroredReservations(query: Query, schema: string) {
  const rows = await query<Record<string, unknown>>(`select * from ${schema}.reservations`);
  const byKey = new Map<string, { reservation: Record<string, unknown>; revision: number }>();
  for (const { restaurant_id: restaurantId, revision, synced_at: _syncedAt, ...fields } of rows) {
    // bigint columns come back as text from some drivers.
    const reservation = present({ ...fields, id: Number(fields.id), metadata: parsed(fields.metadata) });
    byKey.set(`${Number(restaurantId)}:${Number(fields.id)}`, { reservation, revision: Number(revision) });
  }
  return byKey;
}

export interface ChangeRow {
  id: number;
  restaurant_id: number;
  reservation_id: number;
  revision: number;
  kind: string;
  source: string;
  before: Reservation | null;
  after: Reservation;
  detected_at: unknown;
}

/** The `reservation_changes` rows in `id` order. */
export async function changeRows(query: Query, schema: string): Promise<ChangeRow[]> {
  const rows = await query<ChangeRow>(
    `select id::float8 as id, restaurant_id::float8 as restaurant_id, reservation_id::float8 as reservation_id,
       revision, kind, source, before, after, detected_at
     from ${schema}.reservation_changes order by id`,
  );
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    restaurant_id: Number(row.restaurant_id),
    reservation_id: Number(row.reservation_id),
    revision: Number(row.revision),
    before: parsed(row.before),
    after: parsed(row.after),
  }));
}

/** The changes of each reservation, keyed `restaurant:id`, in `id` order. */
export function changesByReservation(changes: ChangeRow[]): Map<string, ChangeRow[]> {
  const byKey = new Map<string, ChangeRow[]>();
  for (const change of changes) {
    const key = `${change.restaurant_id}:${change.reservation_id}`;
    byKey.set(key, [...(byKey.get(key) ?? []), change]);
  }
  return byKey;
}

/**
 * Both tables equal `truth` (reservations keyed `restaurant:id`), and each reservation's changes
 * are one clean chain ending at its mirrored row. Answers the number of changes.
 */
export async function expectMirrorEquals(
  query: Query,
  schema: string,
  truth: Map<string, Reservation>,
): Promise<number> {
  const mirrored = await mirroredReservations(query, schema);
  const changes = await changeRows(query, schema);
  const chains = changesByReservation(changes);
  expect(new Set(mirrored.keys())).toEqual(new Set(truth.keys()));
  expect(new Set(chains.keys())).toEqual(new Set(truth.keys()));
  for (const [key, reservation] of truth) {
    const row = mirrored.get(key)!;
    expect(row.reservation, `reservation ${key}`).toEqual(present(reservation as never));
    const chain = chains.get(key)!;
    expect(
      chain.map((change) => change.revision),
      `revisions of ${key}`,
    ).toEqual(chain.map((_, index) => index + 1));
    expect(chain[0]!.kind).toBe('created');
    expect(chain[0]!.before).toBeNull();
    for (let index = 1; index < chain.length; index++)
      expect(chain[index]!.before, `change ${index + 1} of ${key}`).toEqual(chain[index - 1]!.after);
    expect(present(chain.at(-1)!.after as never)).toEqual(row.reservation);
    expect(row.revision).toBe(chain.length);
  }
  return changes.length;
}
