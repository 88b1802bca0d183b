/**
 * The booking ledger's tables. `booking_ledger` holds one entry per idempotency key (its slot):
 * a running claim, a booking, or an ambiguous hold. `booking_ledger_sent` holds what must
 * outlive a partner's transaction: a create claimed inside the partner's own transaction records
 * its "may have been sent" fence, its renewals and its outcome here, outside that transaction, so
 * a rollback after the POST left never frees the key. Leases are on the database's clock
 * (`lease_ends_at`, `expires_at`); holds on the client's (`until_ms`, ms since the epoch).
 * @module
 */
import type { Migration } from '../migrations.js';

const entryColumns = `
  slot text primary key,
  state text not null check (state in ('running', 'booked', 'ambiguous')),
  fingerprint text not null,
  token text,
  until_ms bigint,
  reservation_id text,
  lease_ends_at timestamptz,
  expires_at timestamptz not null,
  updated_at timestamptz not null default now()`;

export const bookingLedger: Migration = {
  name: '0001_booking_ledger',
  sql: (schema) => `
create table if not exists ${schema}.booking_ledger (${entryColumns}
);
create index if not exists booking_ledger_expires_at on ${schema}.booking_ledger (expires_at);
create table if not exists ${schema}.booking_ledger_sent (${entryColumns}
);
create index if not exists booking_ledger_sent_expires_at on ${schema}.booking_ledger_sent (expires_at);
`,
};
