/**
 * Order of {@link RequestSent}, for the transport that joins what each attempt sent.
 * @module
 */
import type { RequestSent } from '../errors/base.js';

const SENT_ORDER: Record<RequestSent, number> = { no: 0, maybe: 1, yes: 2 };

/** The stronger of two {@link RequestSent} values (`'yes'` over `'maybe'` over `'no'`). */
export function strongerSent(a: RequestSent, b: RequestSent): RequestSent {
  return SENT_ORDER[a] >= SENT_ORDER[b] ? a : b;
}
