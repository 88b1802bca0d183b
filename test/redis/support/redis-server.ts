/**
 * A real redis-server for the tests (scripts/redis-server.mjs, shared with the bench and the
 * example): free loopback port, no persistence, installed through the system package manager where
 * it is missing (or the start fails with one line saying what to install: never a skip).
 */
export { startRedisServer, type ThrowawayRedis as TestRedis } from '../../../scripts/redis-server.mjs';
