import { afterAll } from 'vitest';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import type { RedisClient } from '../../../src/redis/index.js';

export type ClientKind = 'ioredis' | 'node-redis';
export const CLIENT_KINDS: readonly ClientKind[] = ['ioredis', 'node-redis'];

export interface ConnectedClient {
  client: RedisClient;
  /** Runs a raw command (for assertions on the keys). */
  command(...args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects a client of `kind` as a partner would, with its default reconnect behaviour. */
export async function connectClient(kind: ClientKind, url: string): Promise<ConnectedClient> {
  if (kind === 'ioredis') {
    const client = new Redis(url);
    client.on('error', () => undefined);
    await client.ping();
    return {
      client,
      command: (name, ...args) => client.call(name, ...args),
      close: async () => void client.disconnect(),
    };
  }
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return {
    client,
    command: (...args) => client.sendCommand(args),
    close: async () => {
      if (client.isOpen) client.destroy();
    },
  };
}

/**
 * For one `describe` block: a `connect()` that opens a client of `kind` to the test Redis (whose
 * URL is read when called, after the server started), all closed after the block.
 */
export function connectionsOf(kind: ClientKind, url: () => string): () => Promise<ConnectedClient> {
  const connections: ConnectedClient[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  });
  return async () => {
    const connection = await connectClient(kind, url());
    connections.push(connection);
    return connection;
  };
}
