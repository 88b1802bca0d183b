/**
 * The fake's in-memory state: plain data only (Maps, arrays, numbers, strings), so `snapshot()`
 * is a structured clone and two fakes never share anything.
 * @module
 */
import { RESERVATION_EVENT_TYPES } from '../../resources/event-names.js';
import type { WebhookEventType } from '../../resources/webhooks.schemas.js';
import type { GuestTexts } from './guest-texts.js';

/** Weekly opening period: seatings may start from `start` (inclusive) until `end` (exclusive). */
export interface OpeningPeriod {
  /** ISO weekdays, 1 = Monday ... 7 = Sunday. */
  days: number[];
  /** Local `HH:MM`. */
  start: string;
  /** Local `HH:MM`; `24:00` means midnight at the end of the day. */
  end: string;
}

/** How long a table is held, by party size (adults + children). */
export interface DurationRule {
  /** Largest party (inclusive) this rule covers. */
  maxPartySize: number;
  /** ISO 8601 duration, for example `PT1H30M`. */
  duration: string;
}

/** A restaurant's booking configuration: where availability comes from. */
export interface AvailabilityConfig {
  openingPeriods: OpeningPeriod[];
  /** Start times fall on this grid, counted from each period's start. */
  slotIntervalMinutes: number;
  /** Ordered by `maxPartySize`; the first rule whose size covers the party applies. */
  durations: DurationRule[];
  /** Covers (guests) seated at once, across every channel. */
  capacityCovers: number;
  /** How far ahead a booking may start. */
  horizonDays: number;
  /** How soon a booking may start, counted from now. */
  minimumLeadTimeMinutes: number;
}

/** How a restaurant confirms: at creation (synchronous) or later, by hand (asynchronous). */
export type ConfirmationModeValue = 'CONFIRMATION_MODE_SYNCHRONOUS' | 'CONFIRMATION_MODE_ASYNCHRONOUS';

export interface PartnerRecord {
  partnerId: string;
  apiToken: string;
  name: string;
  description: { fr: string; nl: string; en: string; de: string } | null;
  website_url: string | null;
}

export interface RestaurantRecord {
  id: number;
  display_name: string;
  schema_name: string;
  address: string;
  website: string;
  latitude: number;
  longitude: number;
  timezone: string;
  confirmation_mode: ConfirmationModeValue;
  availability: AvailabilityConfig;
}

/** Who made a reservation: a partner through the API, or another channel (invisible to partners). */
export type Channel = { kind: 'partner'; partnerId: string } | { kind: 'other'; name: string };

/** A reservation as the fake keeps it; the guest's text fields are those of `RESERVATION_FIELDS`. */
export interface ReservationRecord extends GuestTexts {
  id: number;
  restaurantId: number;
  channel: Channel;
  /** Epoch milliseconds. */
  start: number;
  durationMinutes: number;
  adults: number;
  children: number;
  metadata: Record<string, unknown> | null;
  confirmation_mode: ConfirmationModeValue;
  createdAt: number;
  cancelledAt: number | null;
  /** Who cancelled (shown on the simulator page and in the control API's state), or null. */
  cancelledBy: 'partner' | 'restaurant' | 'customer' | null;
  confirmedAt: number | null;
  arrivedAt: number | null;
  noShowAt: number | null;
}

/** The events the fake sends: the core's list of reservation events. */
export const EVENT_TYPES = RESERVATION_EVENT_TYPES;
export type { WebhookEventType };

export interface WebhookRecord {
  id: number;
  partnerId: string;
  url: string;
  name: string | null;
  is_enabled: boolean;
  subscribed_events: Record<WebhookEventType, boolean>;
  authToken: string;
  createdAt: number;
  updatedAt: number;
  lastUseAt: number | null;
  lastResponseStatusCode: number | null;
  lastResponse: Record<string, unknown> | null;
}

/** The first answer to a create carrying an `Idempotency-Key`, replayed for the same key and body. */
export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  body: string;
}

/** One event waiting for (another) delivery attempt to one webhook. */
export interface PendingDelivery {
  sequence: number;
  eventId: string;
  event: string;
  webhookId: number;
  restaurantId: number | null;
  /** The reservation as the partner API showed it when the event happened. */
  reservation: Record<string, unknown> | null;
  createdAt: number;
  attempt: number;
  dueAt: number;
  /** A second copy of the same delivery, made by delivery chaos. */
  duplicate?: boolean;
}

/** One delivery attempt, as logged in `fake.deliveries` (oldest first). The token is never logged. */
export interface DeliveryLogEntry {
  /** The event id, shared by every attempt of the same event (the receiver drops duplicates by it). */
  eventId: string;
  event: string;
  webhookId: number;
  url: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** HTTP status answered, or null when there was no answer (network error, timeout). */
  status: number | null;
  /** true for a 2xx answer. */
  ok: boolean;
  /** Why there was no answer, when there was none. */
  error: string | null;
  /** ISO time of the attempt on the fake's clock. */
  deliveredAt: string;
  /** ISO time of the next attempt, or null when none follows. */
  nextAttemptAt: string | null;
  restaurantId: number | null;
  reservationId: number | null;
  /** The raw JSON body sent. */
  body: string;
  /** The body answered, parsed when it was JSON; at most 8 KiB of it is read, as text when cut. */
  response: unknown;
  /** true when the answer was longer than what was read (the rest was never read). */
  responseTruncated: boolean;
  /** true for the second copy of a delivery that delivery chaos sent twice (same `eventId`). */
  duplicate: boolean;
}

export interface FakeState {
  nextRestaurantId: number;
  nextReservationId: number;
  nextWebhookId: number;
  nextDeliverySequence: number;
  partners: Map<string, PartnerRecord>;
  restaurants: Map<number, RestaurantRecord>;
  /** `${partnerId} ${restaurantId}` pairs. */
  links: Set<string>;
  reservations: Map<number, ReservationRecord>;
  webhooks: Map<number, WebhookRecord>;
  /** Keyed `${partnerId} ${key}`. */
  idempotency: Map<string, IdempotencyRecord>;
  pendingDeliveries: PendingDelivery[];
  deliveries: DeliveryLogEntry[];
}

export function emptyState(): FakeState {
  return {
    nextRestaurantId: 1,
    nextReservationId: 1,
    nextWebhookId: 1,
    nextDeliverySequence: 1,
    partners: new Map(),
    restaurants: new Map(),
    links: new Set(),
    reservations: new Map(),
    webhooks: new Map(),
    idempotency: new Map(),
    pendingDeliveries: [],
    deliveries: [],
  };
}

export const linkKey = (partnerId: string, restaurantId: number): string => `${partnerId} ${restaurantId}`;

/** Random URL-safe token (Web Crypto only). */
export function randomToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${prefix}${btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}`;
}
