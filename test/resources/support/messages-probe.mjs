// Run as `node --import tsx messages-probe.mjs`: the SDK alone in a process, without zod's full
// form (which would install its English locale for everyone). Prints the messages of a few
// refusals, from the client and from an exported schema, and whether any locale was installed.
import { PartnerClient, ReservationCreateInput, WebhookCreateInput } from '../../../src/index.ts';

const client = new PartnerClient({
  baseUrl: 'http://127.0.0.1:9',
  partnerId: '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10',
  apiToken: 'not-a-secret',
});
const refused = await client.reservations
  .list(1, { page_size: 0, start_time_after: 12 })
  .toArray()
  .catch((error) => error);
const schema = ReservationCreateInput.safeParse({ adults: 2.5, start_time: '2026-12-05T19:30:00', phone: 7 });
const url = WebhookCreateInput.safeParse({ url: 'not a url' });
process.stdout.write(
  `${JSON.stringify({
    localeInstalled: typeof globalThis.__zod_globalConfig?.localeError === 'function',
    client: refused.issues.map(({ field, message }) => ({ field, message })),
    schema: schema.error.issues.map(({ path, message }) => ({ path, message })),
    url: url.error.issues.map(({ path, message }) => ({ path, message })),
  })}\n`,
);
