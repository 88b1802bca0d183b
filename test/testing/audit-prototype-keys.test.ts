/**
 * The audit's finding on body keys named like built-in object members: `constructor`,
 * `toString`, `__proto__` and friends in a JSON body are keys like any other. A route that takes
 * no such key refuses it with a 400 naming it, never a 500, and nothing in the fake changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from './helpers.js';
import { rawJson } from './raw-http.js';
import { demoAuth, startAudit, type AuditServer } from './audit-support.js';

const KEYS = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

let audit: AuditServer;
let reservationId: number;
let webhookId: number;
beforeAll(async () => {
  audit = await startAudit();
  const booked = await audit.send(
    'POST',
    `${API}/restaurants/1/reservations/`,
    { authorization: demoAuth },
    JSON.stringify({ start_time: '2026-12-09T19:00:00', adults: 2 }),
  );
  expect(booked.status).toBe(201);
  reservationId = rawJson(booked).id;
  const webhook = await audit.send(
    'POST',
    `${API}/webhooks/`,
    { authorization: demoAuth },
    JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
  );
  webhookId = rawJson(webhook).id;
});
afterAll(() => audit.server.close());

describe('PATCH bodies with keys named like object members', () => {
  const routes = () => [`${API}/profile/`, `${API}/restaurants/1/reservations/${reservationId}/`];

  it('answer 400 naming the key on the profile and reservation routes', async () => {
    for (const target of routes())
      for (const key of KEYS) {
        const body = `{${JSON.stringify(key)}: 1}`;
        const answer = await audit.send('PATCH', target, { authorization: demoAuth }, body);
        expect(answer.status, `${target} ${key}`).toBe(400);
        const parsed = JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
        expect(Object.hasOwn(parsed, key), `${target} ${key}: ${answer.text}`).toBe(true);
        expect(parsed[key]).toEqual([expect.any(String)]);
      }
  });

  it('a webhook PATCH ignores them as any unknown key, and refuses them as event names', async () => {
    for (const key of KEYS) {
      const ignored = await audit.send(
        'PATCH',
        `${API}/webhooks/${webhookId}/`,
        { authorization: demoAuth },
        `{${JSON.stringify(key)}: 1, "name": "hook"}`,
      );
      expect(ignored.status, key).toBe(200);
      expect(rawJson(ignored).name).toBe('hook');
      const event = await audit.send(
        'PATCH',
        `${API}/webhooks/${webhookId}/`,
        { authorization: demoAuth },
        `{"subscribed_events": {${JSON.stringify(key)}: true}}`,
      );
      expect(event.status, key).toBe(400);
      expect(Object.hasOwn(rawJson(event), `subscribed_events.${key}`), event.text).toBe(true);
    }
  });

  it('answer 400 beside a valid key, and change nothing', async () => {
    const before = (await audit.send('GET', `${API}/profile/`, { authorization: demoAuth })).text;
    const answer = await audit.send(
      'PATCH',
      `${API}/profile/`,
      { authorization: demoAuth },
      '{"name": "Renamed", "constructor": {"prototype": {"polluted": true}}, "__proto__": {"polluted": true}}',
    );
    expect(answer.status).toBe(400);
    expect(
      (await audit.send('GET', `${API}/profile/`, { authorization: demoAuth })).text.split('\r\n\r\n')[1],
    ).toBe(before.split('\r\n\r\n')[1]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the arrived / no_show PATCH and the control routes refuse them the same way', async () => {
    const mixed = await audit.send(
      'PATCH',
      `${API}/restaurants/1/reservations/${reservationId}/`,
      { authorization: demoAuth },
      '{"arrived": true, "toString": 1}',
    );
    expect(mixed.status).toBe(400);
    expect(rawJson(mixed).toString).toEqual([expect.any(String)]);
    for (const key of KEYS) {
      const answer = await audit.control('POST', 'faults', JSON.parse(`{${JSON.stringify(key)}: 1}`));
      expect(answer.status, key).toBe(400);
      const modify = await audit.control(
        'POST',
        `restaurants/1/reservations/${reservationId}/modify`,
        JSON.parse(`{${JSON.stringify(key)}: 1}`),
      );
      expect(modify.status, key).toBe(400);
    }
  });
});
