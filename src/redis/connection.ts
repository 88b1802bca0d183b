/**
 * The one place that talks to the partner's Redis client. Both supported clients run a Lua script
 * by its SHA1 (EVALSHA) and fall back to sending its text (EVAL, which also caches it on the
 * server) when the server answers NOSCRIPT (first use, or after a restart emptied the cache);
 * their argument conventions differ:
 * - ioredis: `evalsha(sha, numberOfKeys, ...keys, ...args)`
 * - node-redis (`redis` 4 and later): `evalSha(sha, { keys, arguments })`
 * Every call is bounded by a short timeout: a client whose connection is down queues commands
 * until it reconnects, and no caller may wait on that.
 * @module
 */
import { createHash } from 'node:crypto';
import { PartnerSdkError } from '../errors.js';
import { nameErrorClass } from '../errors/base.js';

/** An ioredis client (`new Redis(...)`, or a `Cluster`): the part of it the SDK uses. */
export interface IoRedisClient {
  evalsha(sha: string, numberOfKeys: number, ...keysAndArguments: (string | number)[]): Promise<unknown>;
  eval(script: string, numberOfKeys: number, ...keysAndArguments: (string | number)[]): Promise<unknown>;
}

/** A node-redis client (`createClient(...)` from `redis` 4 or later, connected): the part of it the SDK uses. */
export interface NodeRedisClient {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Your Redis (or Valkey) client: an ioredis or a node-redis client. The SDK never connects or closes it. */
export type RedisClient = IoRedisClient | NodeRedisClient;

/** A Redis command did not answer in time (the connection is down or the server is overloaded). Retryable. */
export class RedisTimeoutError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'RedisTimeoutError');
  }
  constructor(timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`, { retryable: true });
  }
}

/** Reads an optional positive number option, naming it when it is wrong. */
export function positiveOption(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && value > 0 && Number.isFinite(value)))
    throw new RangeError(`${name} must be a positive finite number`);
  return value;
}

/** A Lua script with its SHA1, computed once. */
export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Deletes KEYS[1] only while it holds ARGV[1]: ends a lease without touching one another holder took since. */
export const RELEASE_LEASE = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`);

/** Runs scripts on either client, each call bounded by `timeoutMs`. */
export interface ScriptRunner {
  run(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown>;
  readonly kind: 'ioredis' | 'node-redis';
}

const isNoScript = (error: unknown) => error instanceof Error && /^NOSCRIPT/i.test(error.message);

function detect(redis: unknown): 'ioredis' | 'node-redis' {
  const candidate = redis as Record<string, unknown> | null;
  if (candidate && typeof candidate === 'object') {
    // node-redis names its commands in camelCase (and UPPERCASE); ioredis only in lowercase.
    if (typeof candidate.evalSha === 'function' && typeof candidate.eval === 'function') return 'node-redis';
    if (typeof candidate.evalsha === 'function' && typeof candidate.eval === 'function') return 'ioredis';
  }
  throw new TypeError('redis must be an ioredis client or a node-redis client (from the `redis` package)');
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // After a stall of the whole process (a busy host), the timer and the answer are both due:
    // timers run before the event loop reads sockets, so the answer gets its turn first.
    timer = setTimeout(() => setImmediate(() => reject(new RedisTimeoutError(timeoutMs))), timeoutMs);
  });
  // The command itself may still answer later (the client keeps it queued); nobody waits for it.
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Wraps the partner's client. When it is an event emitter with no `error` listener yet, one is
 * added that reports through `onError`: an emitter's unheard `error` event would otherwise end the
 * process when Redis restarts (node-redis emits one on every lost connection).
 */
export function createScriptRunner(
  redis: RedisClient,
  timeoutMs: number,
  onError: (error: unknown) => void,
): ScriptRunner {
  const kind = detect(redis);
  const emitter = redis as unknown as {
    on?: (event: string, listener: (error: unknown) => void) => void;
    listenerCount?: (event: string) => number;
  };
  if (
    typeof emitter.on === 'function' &&
    typeof emitter.listenerCount === 'function' &&
    emitter.listenerCount('error') === 0
  ) {
    emitter.on('error', onError);
  }
  const send = (
    useSource: boolean,
    script: LuaScript,
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown> => {
    if (kind === 'node-redis') {
      const client = redis as NodeRedisClient;
      const options = { keys, arguments: args.map(String) };
      return useSource ? client.eval(script.source, options) : client.evalSha(script.sha, options);
    }
    const client = redis as IoRedisClient;
    return useSource
      ? client.eval(script.source, keys.length, ...keys, ...args)
      : client.evalsha(script.sha, keys.length, ...keys, ...args);
  };
  return {
    kind,
    async run(script, keys, args) {
      try {
        return await withTimeout(
          Promise.resolve().then(() => send(false, script, keys, args)),
          timeoutMs,
        );
      } catch (error) {
        if (!isNoScript(error)) throw error;
        return withTimeout(
          Promise.resolve().then(() => send(true, script, keys, args)),
          timeoutMs,
        );
      }
    },
  };
}
