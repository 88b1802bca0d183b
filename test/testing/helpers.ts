/**
 * Test drivers for the fake: the same rule tests run against `fake.handle` (in-process) and
 * against the standalone `node:http` server on loopback, with plain fetch and Basic auth from test/support/basic-auth.ts.
 */
import { createFakeService, type FakeService, type FakeServiceOptions } from 'restaurant-partner-sdk/testing';
import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
import { basicAuthorization } from '../support/basic-auth.js';

export const API = '/api/v1/partnership';
/** A Tuesday, 09:00 in Brussels. */
export const START = '2026-12-01T08:00:00Z';

export interface SendOptions {
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string;
  auth?: string | null;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the wire body, read field by field by the tests
  body: any;
  text: string;
}

/** One way to reach a fake: in-process or over real HTTP. */
export interface Driver {
  name: string;
  fake: FakeService;
  baseUrl: string;
  send(method: string, path: string, options?: SendOptions): Promise<Answer>;
  close(): Promise<void>;
}

async function toAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export type DriverKind = 'handle' | 'node:http';

/** Creates a fake (frozen clock at START, no rate limit unless asked) with one partner and a linked restaurant. */
export async function createDriver(
  kind: DriverKind,
  options: FakeServiceOptions = {},
): Promise<Driver & { partner: { partnerId: string; apiToken: string }; auth: string }> {
  const fake = createFakeService({ clock: { frozen: true, startAt: START }, rateLimit: false, ...options });
  const partner = fake.addPartner({ name: 'Test partner' });
  const auth = basicAuthorization(partner.partnerId, partner.apiToken);
  let baseUrl = 'http://fake.test';
  let close = async () => fake.dispose();
  if (kind === 'node:http') {
    const server = await startFakeServer({ fake });
    baseUrl = server.url;
    close = () => server.close();
  }
  const send = async (method: string, path: string, sendOptions: SendOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...sendOptions.headers };
    const authorization = sendOptions.auth === undefined ? auth : sendOptions.auth;
    if (authorization !== null) headers.authorization = authorization;
    let body: string | undefined = sendOptions.raw;
    if (sendOptions.body !== undefined) {
      body = JSON.stringify(sendOptions.body);
      headers['content-type'] = 'application/json';
    }
    const request = new Request(`${baseUrl}${path.startsWith('/_fake') ? path : `${API}${path}`}`, {
      method,
      headers,
      body,
    });
    return toAnswer(kind === 'handle' ? await fake.handle(request) : await fetch(request));
  };
  return { name: kind, fake, baseUrl, send, close, partner, auth };
}

export const DRIVERS: DriverKind[] = ['handle', 'node:http'];
