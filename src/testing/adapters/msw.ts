/**
 * The MSW adapter: wraps the fake's `handle` as MSW request handlers for `setupServer(...)` (or a
 * browser worker). No behaviour lives here beyond conversion. It takes the msw module as an
 * argument, so nothing loads msw until a partner asks for handlers.
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';

/**
 * One of msw's request handlers (its `HttpHandler`), for `setupServer(...)` or `setupWorker(...)`.
 * Typed `any` on purpose: msw is an optional peer, and `restaurant-partner-sdk/testing` must
 * compile where it is not installed (`skipLibCheck: false` included), so this type may not name
 * msw's; and msw's `RequestHandler` is a class with private members, which no type written here
 * can match structurally (`unknown` or an interface would make `setupServer(...handlers)` fail to
 * compile). msw's `setupServer` types the call where msw is used.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- msw's HttpHandler: a class with private members this entry may not name (see above)
export type MswHandler = any;

/** The part of msw the adapter uses. */
export interface MswModule {
  http: { all: (path: string, resolver: (info: { request: Request }) => Promise<Response>) => MswHandler };
  bypass: (request: Request) => Request;
}

/**
 * MSW handlers serving the fake's partner API (`* /api/v1/partnership/*` on any host, so the
 * partner's own configured base URL works unchanged) and its control routes (`* /_fake/*`).
 * Also makes the fake send its webhook deliveries with `bypass()`, so an active `setupServer` in
 * the same process does not swallow them.
 */
export function createMswHandlers(
  handle: (request: Request) => Promise<Response>,
  backend: FakeBackend,
  msw: MswModule,
): MswHandler[] {
  backend.deliveries.setFetch((request, signal) => fetch(msw.bypass(request), { signal }));
  const serve = async ({ request }: { request: Request }) => handle(request);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- MswHandler is msw's handler type, `any` on purpose (above)
  return [
    msw.http.all('*/api/v1/partnership/*', serve),
    msw.http.all('*/api/v1/partnership/profile', serve),
    msw.http.all('*/_fake/*', serve),
    msw.http.all('*/_fake', serve),
  ];
}

/** Loads msw synchronously where Node can (`require` of ESM), for the `handlers` property. */
export function requireMsw(): MswModule {
  const moduleApi = (
    globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }
  ).process?.getBuiltinModule?.('node:module') as
    { createRequire(url: string): (name: string) => unknown } | undefined;
  if (!moduleApi)
    throw new Error(
      'fake.handlers loads msw synchronously, which only Node does; elsewhere (a browser worker) use `await fake.mswHandlers()`.',
    );
  try {
    return moduleApi.createRequire(import.meta.url)('msw') as MswModule;
  } catch (error) {
    throw new Error(
      'fake.handlers needs msw, an optional peer dependency: npm install --save-dev msw (or use fake.clientOptions(partner), which needs no msw).',
      { cause: error },
    );
  }
}
