/**
 * What a control route receives: the world it acts on, the path parameters, the parsed body
 * (keys already in camelCase), and the sandbox host when the route is served at the root.
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';

/** Sandboxes of a standalone server (see `POST /_fake/sandboxes`); only the root world has them. */
export interface SandboxHost {
  create(input: unknown, origin: string): Record<string, unknown>;
  remove(id: string): boolean;
  list(origin: string): Record<string, unknown>[];
}

export interface ControlCall {
  backend: FakeBackend;
  params: Record<string, string>;
  body: unknown;
  url: URL;
  /** The URL up to `/_fake` (a sandbox's prefix included). */
  controlRoot: string;
  sandboxes: SandboxHost | undefined;
  /** The request itself (its headers: `If-None-Match` on `GET /_fake/state`). */
  request: Request;
  /** true when the caller is not on loopback: views withhold partners' API tokens. */
  remoteViewer: boolean;
}
