/** A throwaway redis-server on a free loopback port (see redis-server.mjs). */
export interface ThrowawayRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the server (SIGKILL when `crash`), keeping the port for `start`. */
  stop(options?: { crash?: boolean }): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  /** Sends one command on a connection of its own; resolves with the reply's text (simple, error and integer replies). */
  command(...args: (string | number)[]): Promise<string>;
  /** `CLIENT PAUSE ms ALL`: every client's commands wait `ms`; resolves as soon as the pause starts. */
  pause(ms: number): Promise<void>;
  /** `DEBUG SLEEP`: the whole server hangs for `ms`; resolves when it answers again. */
  sleep(ms: number): Promise<void>;
  /** Killed (SIGKILL), then started again on the same port after `ms`; resolves once it answers (empty). */
  outage(ms: number): Promise<void>;
}

/** Starts redis-server on a free loopback port, installing it first where it can (root on Debian). */
export function startRedisServer(): Promise<ThrowawayRedis>;

/** A free loopback port: bind port 0, read it, let it go (for a server with no `--port 0`). */
export function freePort(): Promise<number>;
