/**
 * The lost connection of the lost-connection proofs, written once for the test (node-postgres) and
 * its worker process (cut-worker.mjs, postgres.js): an executor over `inner` whose transactions
 * lose their connection right before their `cutAt`-th statement, counted over every transaction
 * it runs from 1 (0: never). The server ends the backend (`pg_terminate_backend`), as a failover
 * or an operator's kill does. Plain JavaScript, so the worker loads it without a compiler.
 */
export function cutting(inner, cutAt) {
  let seen = 0;
  let cut = false;
  const within = (tx) => ({
    async query(text, params) {
      if (++seen === cutAt) {
        cut = true;
        await tx.query('select pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
      }
      return tx.query(text, params);
    },
    transaction: (fn) => fn(within(tx)),
  });
  const executor = {
    query: (text, params) => inner.query(text, params),
    transaction: (fn) => inner.transaction((tx) => fn(within(tx))),
  };
  return { executor, wasCut: () => cut };
}
