/**
 * The partner API's profile routes (mirrors the client's `profile` resource).
 * @module
 */
import { profileView, updateProfile as update } from '../backend/partners.js';
import { json } from '../http.js';
import type { ApiCall } from './call.js';

/**
 * GET `/profile/` ("also reached without the trailing slash"). The spec's prose says "a list of
 * profile objects" while its example shows one object: the `profile` dialect picks.
 */
export function retrieveProfile(call: ApiCall): Response {
  const profile = profileView(call.partner);
  return json(200, call.backend.dialect.profile === 'list' ? [profile] : profile);
}

/** PATCH `/profile/`: "Only the fields present are modified." */
export function updateProfile(call: ApiCall): Response {
  return json(200, update(call.partner, call.body));
}
