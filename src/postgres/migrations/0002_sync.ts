/**
 * The reservation sync's tables. `sync_records` and `sync_leases` are the sync store's state (what
 * was announced per reservation, at which revision; who reads or announces what). `reservations`
 * and `reservation_changes` are the mirror: one row per reservation with a column per field under
 * its wire name, and every change appended once. Times the service sends stay text, as sent (a
 * `timestamptz` would drop the restaurant's offset): cast them (`start_time::timestamptz`) to
 * query. The sync's own times are epoch milliseconds on its clock (`double precision`).
 * @module
 */
import type { Migration } from '../migrations.js';

export const sync: Migration = {
  name: '0002_sync',
  sql: (schema) => `
create table if not exists ${schema}.sync_records (
  restaurant_id bigint not null,
  reservation_id bigint not null,
  revision integer not null,
  reservation jsonb not null,
  observed_at double precision not null,
  expires_at double precision not null,
  primary key (restaurant_id, reservation_id)
);
create table if not exists ${schema}.sync_leases (
  key text primary key,
  holder text not null,
  granted_at double precision not null,
  until double precision not null
);
create table if not exists ${schema}.reservations (
  restaurant_id bigint not null,
  id bigint not null,
  first_name text,
  last_name text,
  email text,
  phone text,
  start_time text not null,
  duration text,
  adults integer,
  children integer,
  comment text,
  cancelled boolean,
  cancelled_at text,
  confirmed boolean,
  confirmed_at text,
  confirmation_mode text,
  arrived boolean,
  arrived_at text,
  no_show boolean,
  no_show_at text,
  language text,
  metadata jsonb,
  revision integer not null,
  synced_at timestamptz not null,
  primary key (restaurant_id, id)
);
create table if not exists ${schema}.reservation_changes (
  id bigint generated always as identity primary key,
  restaurant_id bigint not null,
  reservation_id bigint not null,
  revision integer not null,
  kind text not null,
  source text not null,
  before jsonb,
  after jsonb not null,
  detected_at timestamptz not null,
  unique (restaurant_id, reservation_id, revision)
);
`,
};
