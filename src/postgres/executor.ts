/**
 * The one interface the Postgres entry runs its SQL through, and the adapters that turn the
 * drivers a partner already has into it: a node-postgres `Pool` or `Client`, a postgres.js `sql`,
 * a PGlite instance. Drizzle, Kysely or any other layer passes an object of its own implementing
 * {@link SqlExecutor} (docs/postgres.md shows both). No driver is imported here: the partner hands
 * over its instance, and the adapter only calls the methods it recognised.
 * @module
 */
import { InputValidationError } from '../errors.js';

/** What one statement answers: its rows, as objects keyed by column name. */
export interface SqlResult<Row = Record<string, unknown>> {
  rows: Row[];
}

/**
 * A small SQL executor: everything the Postgres entry needs from a database. Parameters are
 * positional (`$1`, `$2`, ...), as in node-postgres.
 *
 * @example A Kysely instance as an executor
 * ```ts
 * import { CompiledQuery, type Kysely } from 'kysely';
 * const fromKysely = (db: Kysely<any>): SqlExecutor => ({
 *   query: async (text, params = []) => ({ rows: (await db.executeQuery(CompiledQuery.raw(text, [...params]))).rows as any[] }),
 *   transaction: (fn) => db.transaction().execute((trx) => fn(fromKysely(trx))),
 * });
 * ```
 */
export interface SqlExecutor {
  /** Runs one statement with its parameters and resolves with its rows. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
  /**
   * Runs `fn` in one transaction, on one connection: committed when `fn` resolves, rolled back
   * when it throws (the error is thrown again). The `tx` handed to `fn` runs its statements in
   * that transaction; a `transaction` started on `tx` joins it.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

/** A node-postgres `Pool` (`new pg.Pool()`), as far as the adapter uses it. */
export interface PgPoolLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgClientLike & { release(error?: Error | boolean): void }>;
  readonly totalCount: number;
}

/** A node-postgres `Client` (connected), or a client checked out of a pool, as far as the adapter uses it. */
export interface PgClientLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A postgres.js `sql` (`postgres(url)`) or a transaction's `sql`, as far as the adapter uses it. */
export interface PostgresJsLike {
  unsafe(text: string, params?: unknown[]): PromiseLike<readonly unknown[]>;
  begin?: unknown;
  savepoint?: unknown;
}

/** A PGlite instance (`new PGlite()`), as far as the adapter uses it. */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  transaction<T>(fn: (tx: { query: PGliteLike['query'] }) => Promise<T>): Promise<T>;
  exec(text: string): Promise<unknown>;
}

/** Everything `createPostgres({ sql })` accepts. */
export type SqlSource = SqlExecutor | PgPoolLike | PgClientLike | PostgresJsLike | PGliteLike;

type Query = (text: string, params?: readonly unknown[]) => Promise<{ rows: unknown[] }>;

const isFunction = (value: unknown): value is (...args: never[]) => unknown => typeof value === 'function';

/**
 * Marks an executor over one connection (a PGlite instance, a node-postgres Client), where a
 * transaction holds the connection whole. The mark is a property of the executor itself (a symbol
 * of this module, so no partner's object carries it by chance).
 */
const ONE_CONNECTION = Symbol('restaurant-partner-sdk one connection');

/** `executor`, marked as running over one connection. */
function overOneConnection(executor: SqlExecutor): SqlExecutor {
  return Object.defineProperty(executor, ONE_CONNECTION, { value: true });
}

/** Whether `executor` runs over one connection, so nothing runs beside its open transaction. */
export const hasOneConnection = (executor: SqlExecutor) => ONE_CONNECTION in executor;

/** An executor whose `transaction` joins the transaction `query` already runs in. */
function inTransaction(query: Query): SqlExecutor {
  const tx: SqlExecutor = {
    query: query as SqlExecutor['query'],
    transaction: (fn) => fn(tx),
  };
  return tx;
}

/** A postgres.js `sql`: `unsafe` runs text with parameters, `begin` reserves a connection for a transaction. */
function fromPostgresJs(sql: PostgresJsLike): SqlExecutor {
  const query: Query = async (text, params = []) => ({ rows: [...(await sql.unsafe(text, [...params]))] });
  // A transaction's own `sql` has `savepoint` and no `begin`: its statements are already in one.
  if (!isFunction(sql.begin)) return inTransaction(query);
  const begin = sql.begin as <T>(fn: (tx: PostgresJsLike) => Promise<T>) => Promise<T>;
  return {
    query: query as SqlExecutor['query'],
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) =>
      begin.call<PostgresJsLike, [(tx: PostgresJsLike) => Promise<T>], Promise<T>>(sql, (tx) =>
        fn(fromPostgresJs(tx)),
      ),
  };
}

/** Runs `fn` between BEGIN and COMMIT on `client`, rolling back when it throws. */
async function withBegin<T>(client: PgClientLike, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn(inTransaction((text, params) => client.query(text, params && [...params])));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A ROLLBACK that fails (the connection is gone) changes nothing: the transaction is over.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A node-postgres `Pool`: each transaction on a connection checked out for it. */
function fromPgPool(pool: PgPoolLike): SqlExecutor {
  return {
    query: ((text, params) => pool.query(text, params && [...params])) as SqlExecutor['query'],
    async transaction(fn) {
      const client = await pool.connect();
      // A checked-out client has no listener of the pool's: a connection the server ends mid-
      // transaction would throw its 'error' event out of the process. The failing statement
      // rejects anyway; a broken client keeps the listener (its socket may still report).
      const events = client as Partial<Record<'on' | 'off', (event: 'error', listener: () => void) => void>>;
      const ignore = () => undefined;
      events.on?.('error', ignore);
      let broken: Error | undefined;
      try {
        return await withBegin(client, fn);
      } catch (error) {
        // A connection whose transaction failed may be in any state: the pool drops it.
        broken = error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        if (!broken) events.off?.('error', ignore);
        client.release(broken);
      }
    },
  };
}

/**
 * One node-postgres `Client`: one connection, so a transaction has it to itself and every other
 * statement waits for the transaction to end (a `Pool` lets them run beside it).
 */
function fromPgClient(client: PgClientLike): SqlExecutor {
  let turn: Promise<unknown> = Promise.resolve();
  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    const result: Promise<T> = turn.then(work, work);
    turn = result.catch(() => undefined);
    return result;
  };
  return overOneConnection({
    query: ((text, params) =>
      queued(() => client.query(text, params && [...params]))) as SqlExecutor['query'],
    transaction: (fn) => queued(() => withBegin(client, fn)),
  });
}

/** A PGlite instance: its `transaction` hands over a `tx` with `query`; nested ones join it. */
function fromPGlite(db: PGliteLike): SqlExecutor {
  return overOneConnection({
    query: ((text, params) => db.query(text, params && [...params])) as SqlExecutor['query'],
    transaction: (fn) =>
      db.transaction((tx) => fn(inTransaction((text, params) => tx.query(text, params && [...params])))),
  });
}

/** An object of the partner's own: used as it is, its transactions' handles as they come. */
function fromExecutor(executor: SqlExecutor): SqlExecutor {
  return executor;
}

/**
 * The executor behind `source`, recognised by shape: a postgres.js `sql` (a function with
 * `unsafe`), a node-postgres `Pool` (`connect` and `totalCount`), a PGlite instance (`exec`,
 * `query` and `transaction`), an object implementing {@link SqlExecutor} (`query` and
 * `transaction`), or a node-postgres `Client` (`query` alone). Anything else is refused.
 */
export function toExecutor(source: SqlSource): SqlExecutor {
  const candidate = source as unknown as Record<string, unknown> | undefined;
  if (isFunction(candidate) || (typeof candidate === 'object' && candidate !== null)) {
    const has = (name: string) => isFunction(candidate[name]);
    if (has('unsafe')) return fromPostgresJs(source as PostgresJsLike);
    if (has('connect') && has('query') && typeof candidate.totalCount === 'number')
      return fromPgPool(source as PgPoolLike);
    if (has('exec') && has('query') && has('transaction') && 'waitReady' in candidate)
      return fromPGlite(source as PGliteLike);
    if (has('query') && has('transaction')) return fromExecutor(source as SqlExecutor);
    if (has('query')) return fromPgClient(source as PgClientLike);
  }
  throw new InputValidationError([
    {
      field: 'sql',
      path: ['sql'],
      code: 'invalid_type',
      message:
        'expected a node-postgres Pool or Client, a postgres.js sql, a PGlite instance, or an object with query(text, params) and transaction(fn)',
    },
  ]);
}
