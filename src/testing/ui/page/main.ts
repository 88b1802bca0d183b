/**
 * The simulator page: the restaurant's side of the fake in a browser. It polls
 * `GET /_fake/state` once a second with `If-None-Match` (a 304 when nothing changed) and
 * redraws only what changed, keyed by id, so focus and half-filled forms survive live updates.
 * @module
 */
import { announce, setRefresh } from './act.js';
import { fetchState } from './api.js';
import { createClockView } from './clock-view.js';
import { createDeliveriesView } from './deliveries.js';
import { createFaultsView } from './faults.js';
import { createPartnersView } from './partners.js';
import { createRestaurantsView } from './restaurants.js';
import { createWebhooksView } from './webhooks.js';

const POLL_INTERVAL_MS = 1000;

function section(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page lacks #${id}.`);
  return element;
}

const views = [
  createClockView(section('clock')),
  createRestaurantsView(section('restaurants')),
  createPartnersView(section('partners')),
  createFaultsView(section('faults')),
  createDeliveriesView(section('deliveries')),
  createWebhooksView(section('webhooks')),
];

let timer: ReturnType<typeof setTimeout> | undefined;
let running: Promise<void> | undefined;
let connectionLost = false;

async function refresh(): Promise<void> {
  try {
    const state = await fetchState();
    if (state) for (const view of views) view(state);
    document.body.dataset.ready = 'true';
    if (connectionLost) announce('Connected to the fake again.');
    connectionLost = false;
  } catch (error) {
    if (!connectionLost)
      announce(
        `Cannot reach the fake (${error instanceof Error ? error.message : String(error)}); retrying every second.`,
      );
    connectionLost = true;
  }
}

/** Refreshes now (one request at a time), then every second while the page is visible. */
function schedule(): void {
  clearTimeout(timer);
  running = (running ?? Promise.resolve()).then(refresh).finally(() => {
    running = undefined;
    clearTimeout(timer);
    if (!document.hidden) timer = setTimeout(schedule, POLL_INTERVAL_MS);
  });
}

setRefresh(schedule);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) schedule();
});
schedule();
