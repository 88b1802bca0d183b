/** A throwaway PostgreSQL cluster on a free loopback port (see postgres-server.mjs). */
export interface ThrowawayPostgres {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string;
  /** Ends the server and removes its folder. */
  stop(): Promise<void>;
}

/** Starts PostgreSQL on a free loopback port, installing it first where it can (root on Debian). */
export function startPostgresServer(): Promise<ThrowawayPostgres>;
