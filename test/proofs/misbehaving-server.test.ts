/**
 * The fault suite is only as good as the server it runs against: prove that each scripted fault
 * does exactly what it claims (commit or not, answer or not), with plain fetch and no SDK code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedFaults, startMisbehavingServer, type MisbehavingServer } from '../support/misbehaving-server.js';

const partnerId = '7f6c1a52-4f7e-4f39-9f61-0a8c2f3d9b11';
const apiToken = 'misbehaving-server-token';
const authorization = `Basic ${Buffer.from(`${partnerId}:${apiToken}`).toString('base64')}`;
let server: MisbehavingServer;
const collection = () => `${server.url}/api/v1/partnership/restaurants/1/reservations/`;
const create = (key: string) =>
  fetch(collection(), {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ start_time: '2026-06-01T19:00:00+02:00', adults: 2, metadata: { key } }),
  });
const keysStored = () => [...server.reservations.values()].map((stored) => (stored.body.metadata as { key: string }).key);

beforeAll(async () => {
  server = await startMisbehavingServer({
    partnerId,
    apiToken,
    defaultPageSize: 2,
    faults: scriptedFaults({
      create: [
        { kind: 'rate-limited', retryAfterSeconds: 3 },
        { kind: 'rate-limited' },
        { kind: 'error-before-commit' },
        { kind: 'error-after-commit', status: 500 },
        { kind: 'drop-before-commit' },
        { kind: 'drop-after-commit' },
        { kind: 'slow', delayMs: 300 },
        { kind: 'slow', delayMs: 200 },
      ],
      cancel: [{ kind: 'error-after-commit' }],
    }),
  });
});
afterAll(() => server.close());

describe('misbehaving server', () => {
  it('refuses wrong credentials with 401 before anything else', async () => {
    const response = await fetch(collection(), { headers: { authorization: 'Basic eDp5' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('plays each scripted create fault, committing only where the fault says so', async () => {
    const first = await create('a');
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
    const second = await create('b');
    expect([second.status, second.headers.get('retry-after')]).toEqual([429, null]);
    expect((await create('c')).status).toBe(503);
    expect(keysStored()).toEqual([]);
    expect((await create('d')).status).toBe(500);
    expect(keysStored()).toEqual(['d']);
    await expect(create('e')).rejects.toThrow();
    expect(keysStored()).toEqual(['d']);
    await expect(create('f')).rejects.toThrow();
    expect(keysStored()).toEqual(['d', 'f']);

    const slowStartedAt = Date.now();
    const timedOut = await create('g').catch((error: unknown) => error);
    expect(Date.now() - slowStartedAt).toBeGreaterThanOrEqual(290);
    expect((timedOut as Response).status).toBe(201);
    expect(keysStored()).toEqual(['d', 'f', 'g']);
  });

  it('still commits a slow create after the caller gave up on it', async () => {
    await expect(
      fetch(collection(), {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ start_time: '2026-06-01T19:00:00+02:00', adults: 2, metadata: { key: 'h' } }),
        signal: AbortSignal.timeout(50),
      }),
    ).rejects.toThrow(/timeout/i);
    expect(keysStored()).not.toContain('h');
    await server.settle();
    expect(keysStored()).toContain('h');
  });

  it('ignores Idempotency-Key: the same key twice makes two reservations', async () => {
    await create('same');
    await create('same');
    expect(keysStored().filter((key) => key === 'same')).toHaveLength(2);
    expect(server.requests.filter((request) => request.idempotencyKey === 'same')).toHaveLength(2);
  });

  it('pages the list envelope and serves detail and cancel (with a 5xx after a committed cancel)', async () => {
    const pages: unknown[][] = [];
    let next: string | null = collection();
    while (next) {
      const page = (await (await fetch(next, { headers: { authorization } })).json()) as { next: string | null; results: unknown[]; count: number };
      expect(page.count).toBe(server.reservations.size);
      pages.push(page.results);
      next = page.next;
    }
    expect(pages.flat()).toHaveLength(server.reservations.size);
    expect(pages[0]).toHaveLength(2);

    const [id] = server.reservations.keys();
    const cancel = () => fetch(`${collection()}${id}/?action=cancel`, { method: 'PATCH', headers: { authorization, 'content-type': 'application/json' }, body: '{}' });
    expect((await cancel()).status).toBe(502);
    expect(server.reservations.get(id!)).toMatchObject({ cancelled: true, cancelCommits: 1 });
    const again = await cancel();
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ id, cancelled: true });
    expect((await fetch(`${collection()}${id}/`, { headers: { authorization } })).status).toBe(200);
    expect((await fetch(`${collection()}999999/`, { headers: { authorization } })).status).toBe(404);
  });
});
