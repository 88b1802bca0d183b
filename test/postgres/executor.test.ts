/**
 * The SqlExecutor every way a partner hands over its database, on a real PostgreSQL server (and
 * PGlite): parameters, a transaction committed when its function resolves and rolled back when it
 * throws (the error thrown again), a transaction started on a transaction's handle joining it,
 * and statements outside a transaction unaffected by one rolled back.
 */
import { describe, expect, it } from 'vitest';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { useConnection, type DriverKind } from './support/drivers.js';
import { freshSchema, usePostgresServer } from './support/postgres-server.js';

const server = usePostgresServer();

describe.each<DriverKind>(['pg Pool', 'pg Client', 'postgres.js', 'PGlite', 'Drizzle', 'Kysely'])(
  'the executor over %s',
  (kind) => {
    const db = useConnection(server, kind);

    it('commits what a transaction wrote when it resolves, rolls it all back when it throws, joins nested ones', async () => {
      const schema = freshSchema('executor');
      const { executor } = createPostgres({ sql: db.sql, schema });
      await executor.query(`create schema "${schema}"`);
      await executor.query(`create table "${schema}".t (id integer primary key, note text)`);
      const notes = async () =>
        (await executor.query<{ id: number; note: string }>(`select id, note from "${schema}".t order by id`))
          .rows;
      const answer = await executor.transaction(async (tx) => {
        await tx.query(`insert into "${schema}".t values ($1, $2)`, [1, 'committed']);
        await tx.transaction((inner) =>
          inner.query(`insert into "${schema}".t values ($1, $2)`, [2, 'joined']),
        );
        return 'done';
      });
      expect(answer).toBe('done');
      const failure = new Error('the partner code failed');
      await expect(
        executor.transaction(async (tx) => {
          await tx.query(`insert into "${schema}".t values ($1, $2)`, [3, 'rolled back']);
          await tx.transaction((inner) =>
            inner.query(`insert into "${schema}".t values ($1, $2)`, [4, 'rolled back']),
          );
          throw failure;
        }),
      ).rejects.toBe(failure);
      await executor.query(`insert into "${schema}".t values ($1, $2)`, [5, 'after']);
      expect(await notes()).toEqual([
        { id: 1, note: 'committed' },
        { id: 2, note: 'joined' },
        { id: 5, note: 'after' },
      ]);
    });
  },
);
