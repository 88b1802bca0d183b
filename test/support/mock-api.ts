/**
 * Kept while parallel branches still import it: `mockApi` and the wire bodies now live in
 * hostile-server.ts, the one helper for answers the fake must never give.
 */
export * from './hostile-server.js';
