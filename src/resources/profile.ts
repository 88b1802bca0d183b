/** The partner's own profile. @module */
import type { ApiPromise } from '../transport/api-promise.js';
import type { RequestOptions } from '../transport/transport.js';
import { parseInput, parseOutput } from '../transport/validate.js';
import { PartnerProfile, PartnerProfileUpdateInput } from './profile.schemas.js';
import { apiPromise, Resource, singleObject } from './resource.js';

/** `client.profile` */
export class Profile extends Resource {
  /**
   * The partner's profile (`GET /profile/`). The spec describes a list of profiles while its
   * example shows one object; both are accepted and one object is returned.
   */
  retrieve(options?: RequestOptions): ApiPromise<PartnerProfile> {
    return apiPromise(() =>
      this.transport.request({
        method: 'GET',
        path: '/profile/',
        safeToRepeat: true,
        options,
        operation: 'profile.retrieve',
        parse: (body, _response, where) => parseOutput(PartnerProfile, singleObject(body, where), where),
      }),
    );
  }

  /**
   * Changes the fields given (`PATCH /profile/`); the others stay as they are.
   * @example await client.profile.update({ description: { en: 'Book the best tables' } });
   */
  update(patch: PartnerProfileUpdateInput, options?: RequestOptions): ApiPromise<PartnerProfile> {
    return apiPromise(async () => {
      const body = parseInput(PartnerProfileUpdateInput, patch);
      return this.transport.request({
        method: 'PATCH',
        path: '/profile/',
        body,
        // Setting the same fields twice leaves the same profile: safe to repeat.
        safeToRepeat: true,
        options,
        operation: 'profile.update',
        parse: (answer, _response, where) => parseOutput(PartnerProfile, singleObject(answer, where), where),
      });
    });
  }
}
