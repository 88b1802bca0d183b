/**
 * A real PostgreSQL cluster for the tests (scripts/postgres-server.mjs, shared with the bench):
 * free loopback port, a temporary folder removed on stop, installed through the system package
 * manager where it is missing (or the start fails with one line saying what to install: never a skip).
 */
export {
  startPostgresServer,
  type ThrowawayPostgres as TestPostgres,
} from '../../../scripts/postgres-server.mjs';
