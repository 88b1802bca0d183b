/**
 * One delivery handed to the partner's receiver, as the service sends it (same body, the
 * partner's webhook token), with the receiver's answer and how long it took; and the line
 * `listen` prints for it.
 * @module
 */

/** How long the receiver has to answer: under the fake's own 10 s delivery limit. */
export const FORWARD_TIMEOUT_MS = 9000;

/** The receiver's answer to one forwarded delivery. */
export interface Forwarded {
  /** When the delivery reached `listen` (ISO 8601). */
  at: string;
  event: string;
  id: string;
  reservationId: number | null;
  /** The receiver's status, or null when it did not answer. */
  status: number | null;
  /** Why there was no answer. */
  error: string | null;
  /** From the delivery's arrival to the receiver's answer, in milliseconds. */
  ms: number;
  /** The receiver's answer body, at most 2 KiB of it. */
  answer: string;
}

/** What the envelope says of itself (read without trusting it: it is only printed). */
export function describe(body: string): { event: string; id: string; reservationId: number | null } {
  try {
    const parsed = JSON.parse(body) as {
      event?: unknown;
      id?: unknown;
      reservation?: { id?: unknown } | null;
    };
    return {
      event: typeof parsed.event === 'string' ? parsed.event : 'unknown',
      id: typeof parsed.id === 'string' ? parsed.id : 'unknown',
      reservationId: typeof parsed.reservation?.id === 'number' ? parsed.reservation.id : null,
    };
  } catch {
    return { event: 'not JSON', id: 'unknown', reservationId: null };
  }
}

/** POSTs `body` to `url` with the partner's token, as the service would; never throws. */
export async function forward(url: string, body: string, token: string, startedAt = performance.now()) {
  const at = new Date().toISOString();
  const facts = describe(body);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'user-agent': 'restaurant-partner-service-webhooks',
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    const answer = (await response.text()).slice(0, 2048);
    return { at, ...facts, status: response.status, error: null, ms: performance.now() - startedAt, answer };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason = cause ?? (error instanceof Error ? error.message : String(error));
    return { at, ...facts, status: null, error: reason, ms: performance.now() - startedAt, answer: '' };
  }
}

/** `2026-... RESERVATION_CONFIRMED evt_... reservation 12 -> 200 in 4 ms` */
export function forwardedLine(result: Forwarded): string {
  const reservation = result.reservationId === null ? '' : ` reservation ${result.reservationId}`;
  const answer = result.status === null ? `no answer (${result.error})` : String(result.status);
  return `${result.at} ${result.event} ${result.id}${reservation} -> ${answer} in ${Math.round(result.ms)} ms`;
}
