// Loaded by scripts/run-readme.mjs before each README block: the fake plays the live service, so
// the README's code runs as written, with no credentials. MSW answers `*/api/v1/partnership/*` on
// any host, so the quick start's `https://partner-api.example.com` reaches the fake. The fake's
// clock starts at a fixed date (and then follows real time), so the README's dates stay bookable.
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { createFakeService } from '../src/testing/index.js';

const fake = createFakeService({ clock: { startAt: '2026-12-01T08:00:00Z' } });
const partner = fake.addPartner();
fake.addRestaurant({
  display_name: 'Le Petit Sablon',
  timezone: 'Europe/Brussels',
  partnerIds: [partner.partnerId],
});
process.env.PARTNER_ID = partner.partnerId;
process.env.PARTNER_TOKEN = partner.apiToken;
process.env.WEBHOOK_TOKEN = 'readme-webhook-token';

// A block that starts its own standalone fake (on loopback) talks to that one, not to this fake.
const server = setupServer(
  http.all(/^http:\/\/(?:127\.0\.0\.1|localhost)[:/]/, () => passthrough()),
  // eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- MswHandler is msw's own type, `any` on purpose
  ...fake.handlers,
);
// Anything else (the receiver block's own local HTTP server) goes to the network as usual.
server.listen({ onUnhandledFrame: 'bypass' });
