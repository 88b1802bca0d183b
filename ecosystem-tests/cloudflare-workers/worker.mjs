// A Cloudflare Worker that books through PartnerClient and verifies deliveries with the receiver's
// handle(Request): POST the scenario's config as JSON, get its results back. No compatibility flag
// (in particular no nodejs_compat): the core and webhooks entries need only Web APIs.
import { runScenario } from '../scenario.mjs';

export default {
  async fetch(request) {
    if (request.method !== 'POST') return new Response('POST the scenario config as JSON', { status: 405 });
    const results = await runScenario(await request.json());
    return Response.json({ runtime: `workerd (${navigator.userAgent})`, results });
  },
};
