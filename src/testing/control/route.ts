/**
 * What a control route is: as documented (method, path, body, what it does), and with its handler.
 * @module
 */
import type { ControlCall } from './call.js';

/** A control route as documented: method, path, the JSON body it takes (`?` marks optional keys), what it does. */
export interface ControlRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: string;
  does: string;
}

/** A control route with the backend call that serves it. */
export interface ControlRouteHandler extends ControlRoute {
  run(call: ControlCall): Response | Promise<Response>;
}
