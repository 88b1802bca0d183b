/**
 * Ids go into paths through this one helper: each is percent-encoded and `.`/`..` are refused, so
 * an id can never walk to another route (`../../webhooks`) or another query.
 * @module
 */
import { InputValidationError } from '../errors.js';

/**
 * Tagged template that encodes every interpolated id.
 * @example path`/restaurants/${restaurantId}/reservations/${id}/`
 */
export function path(strings: TemplateStringsArray, ...ids: (string | number)[]): string {
  let result = strings[0] ?? '';
  ids.forEach((id, index) => {
    const text = String(id);
    if (text === '' || text === '.' || text === '..') {
      throw new InputValidationError([
        {
          field: 'id',
          path: ['id'],
          code: 'invalid_path_segment',
          message: `"${text}" cannot be used as an id in a path`,
        },
      ]);
    }
    result += encodeURIComponent(text) + (strings[index + 1] ?? '');
  });
  return result;
}
