/**
 * A webhook duplicate store shared by several receiver instances. Checking an id claims it
 * atomically (`SET key processing NX PX`), so when two instances receive the same delivery at
 * once only one runs the handler; the other answers it as a duplicate. A processed id is kept for
 * `ttlMs`; a claim whose handler failed is released, so the service's retry runs the handler again.
 * @module
 */
import type { DuplicateStore } from '../webhooks/duplicates.js';
import { createScriptRunner, luaScript, positiveOption, type RedisClient } from './connection.js';

/** Options of {@link createRedisDuplicateStore}. */
export interface RedisDuplicateStoreOptions {
  /** Your connected ioredis or node-redis client. */
  redis: RedisClient;
  /** Prefix of the keys, one per delivery id. Default `restaurant-partner-sdk:webhook:`. */
  keyPrefix?: string;
  /** How long a processed delivery id is remembered. Default 7 days (the service retries for hours). */
  ttlMs?: number;
  /**
   * How long a claim lasts while its handler runs. If the receiver dies mid-handler, the id is
   * free again after this. Keep it below the service's first retry delay (one minute). Default 30 s.
   */
  claimTtlMs?: number;
  /** Longest wait for one Redis command. Default 1000 ms. */
  commandTimeoutMs?: number;
}

// Answers 1 when the id was free and is now claimed by the caller, 0 when it is processed or claimed.
const CLAIM = luaScript(`
if redis.call('SET', KEYS[1], 'processing', 'NX', 'PX', ARGV[1]) then return 1 end
return 0
`);
const MARK_PROCESSED = luaScript(`
redis.call('SET', KEYS[1], 'processed', 'PX', ARGV[1])
return 1
`);
// Frees a claim whose handler failed; a processed id stays processed.
const RELEASE = luaScript(`
if redis.call('GET', KEYS[1]) == 'processing' then redis.call('DEL', KEYS[1]) end
return 1
`);

/**
 * Creates a {@link DuplicateStore} in Redis for `createWebhookReceiver({ duplicateStore })`. Give
 * every receiver instance one built on the same Redis: a delivery is then handled once across all
 * of them. `has(id)` claims the id when it is free (and answers `false`: go on and handle it).
 *
 * @example
 * ```ts
 * const receiver = createWebhookReceiver({ tokens, duplicateStore: createRedisDuplicateStore({ redis }) });
 * ```
 */
export function createRedisDuplicateStore(options: RedisDuplicateStoreOptions): Required<DuplicateStore> {
  if (!options || typeof options !== 'object') throw new TypeError('createRedisDuplicateStore expects { redis }');
  const keyPrefix = options.keyPrefix ?? 'restaurant-partner-sdk:webhook:';
  if (typeof keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const ttlMs = Math.ceil(positiveOption(options.ttlMs, 'ttlMs', 7 * 24 * 60 * 60 * 1000));
  const claimTtlMs = Math.ceil(positiveOption(options.claimTtlMs, 'claimTtlMs', 30_000));
  const runner = createScriptRunner(options.redis, positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 1000), () => undefined);
  const key = (deliveryId: string) => `${keyPrefix}${deliveryId}`;
  return {
    async has(deliveryId) {
      return Number(await runner.run(CLAIM, [key(deliveryId)], [claimTtlMs])) !== 1;
    },
    async add(deliveryId) {
      await runner.run(MARK_PROCESSED, [key(deliveryId)], [ttlMs]);
    },
    async release(deliveryId) {
      await runner.run(RELEASE, [key(deliveryId)], []);
    },
  };
}
