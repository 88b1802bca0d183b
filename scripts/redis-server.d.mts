/** A throwaway redis-server on a free loopback port (see redis-server.mjs). */
export interface ThrowawayRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the server (SIGKILL when `crash`), keeping the port for `start`. */
  stop(options?: { crash?: boolean }): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
}

/** Starts redis-server on a free loopback port, installing it first where it can (root on Debian). */
export function startRedisServer(): Promise<ThrowawayRedis>;
