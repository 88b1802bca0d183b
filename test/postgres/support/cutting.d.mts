import type { SqlExecutor } from 'restaurant-partner-sdk/postgres';

/** `inner` whose transactions lose their connection right before their `cutAt`-th statement (0: never). */
export function cutting(inner: SqlExecutor, cutAt: number): { executor: SqlExecutor; wasCut: () => boolean };
