/**
 * The MSW adapter: wraps the fake's `handle` as MSW request handlers for `setupServer(...)` (or a
 * browser worker). No behaviour lives here beyond conversion.
 * @module
 */
import { bypass, http, type HttpHandler } from 'msw';
import type { FakeService } from './service.js';

/**
 * MSW handlers serving the fake's partner API (`* /api/v1/partnership/*` on any host, so the
 * partner's own configured base URL works unchanged) and its control routes (`* /_fake/*`).
 * Also makes the fake send its webhook deliveries with `bypass()`, so an active `setupServer` in
 * the same process does not swallow them.
 */
export function createMswHandlers(fake: FakeService): HttpHandler[] {
  fake.setDeliveryFetch((request) => fetch(bypass(request)));
  const serve = async ({ request }: { request: Request }) => fake.handle(request);
  return [
    http.all('*/api/v1/partnership/*', serve),
    http.all('*/api/v1/partnership/profile', serve),
    http.all('*/_fake/*', serve),
    http.all('*/_fake', serve),
  ];
}
