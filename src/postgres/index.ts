/**
 * `restaurant-partner-sdk/postgres`: the booking ledger, the sync store and a mirror in the
 * partner's own PostgreSQL.
 * @module
 */
export {};
