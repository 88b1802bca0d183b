/** The restaurants linked to the partner. @module */
import type { ListPromise } from '../transport/pagination.js';
import type { RequestOptions } from '../transport/transport.js';
import { listOf, Resource } from './resource.js';
import { Restaurant } from './restaurants.schemas.js';

/** `client.restaurants` */
export class Restaurants extends Resource {
  /**
   * Every restaurant accessible to the partner (`GET /restaurants/`). Their timezones are
   * remembered, so converting a `start_time` later spends no request.
   * @example const restaurants = await client.restaurants.list().toArray();
   */
  list(options?: RequestOptions): ListPromise<Restaurant> {
    return listOf(this.transport, {
      path: '/restaurants/',
      itemSchema: Restaurant,
      options,
      operation: 'restaurants.list',
      onItems: (restaurants) => this.context.rememberTimezones(restaurants),
    });
  }
}
