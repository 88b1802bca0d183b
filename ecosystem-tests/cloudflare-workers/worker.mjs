// A Cloudflare Worker that books through PartnerClient and verifies deliveries with the receiver's
// handle(Request): POST the scenario's config as JSON, get its results back.
import { runScenario } from '../scenario.mjs';

export default {
  async fetch(request) {
    if (request.method !== 'POST') return new Response('POST the scenario config as JSON', { status: 405 });
    return Response.json({ results: await runScenario(await request.json()) });
  },
};
