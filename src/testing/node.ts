/**
 * `restaurant-partner-sdk/testing/node`: the fake served over `node:http` (Node only), for suites
 * in other languages and for tests of real sockets. The `restaurant-partner-fake` bin runs it.
 *
 * @example
 * ```ts
 * import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
 * const server = await startFakeServer({ seed: 'demo' });
 * // ... server.url, server.fake
 * await server.close();
 * ```
 * @module
 */
export { startFakeServer, type FakeServerOptions, type RunningFakeServer } from './adapters/node-server.js';
