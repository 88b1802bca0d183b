/**
 * What a partner API operation receives: the world it acts on, the authenticated partner, the
 * path parameters (checked positive integers), the URL, the request and its parsed body.
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';
import type { PartnerRecord } from '../backend/state.js';

export interface ApiCall {
  backend: FakeBackend;
  partner: PartnerRecord;
  params: { restaurantId?: number; reservationId?: number; webhookId?: number };
  url: URL;
  request: Request;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

export type ApiOperation = (call: ApiCall) => Response | Promise<Response>;
