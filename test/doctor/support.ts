/**
 * A fake world for doctor: a partner with two restaurants (one open for a booking 8 days ahead)
 * and two reservations of its own, so every point a read can show is visible; and doctor run
 * in-process against it, counting what the fake's journal received.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartnerClient, silentLogger, type DialectFile } from 'restaurant-partner-sdk';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { runDoctor, type DoctorOptions, type DoctorResult } from '../../src/cli/doctor.js';
import type { Exchange } from '../../src/cli/doctor-probe.js';
import { basicAuthorization } from '../support/basic-auth.js';

export const dir = () => mkdtempSync(join(tmpdir(), 'doctor-'));

export interface World {
  fake: FakeService;
  partner: { partnerId: string; apiToken: string };
  /** Runs doctor with `--probe-writes` (unless told otherwise) and reads back what it wrote. */
  doctor: (options?: Partial<DoctorOptions> & { spendFirst?: boolean }) => Promise<Run>;
}

export interface Run {
  result: DoctorResult;
  output: string;
  file: DialectFile | undefined;
  record: { exchanges: Exchange[] } | undefined;
  /** Requests of this partner the fake's journal holds for the run. */
  journalCount: number;
}

export async function world(dialect: object = {}): Promise<World> {
  const fake = createFakeService({ rateLimit: false, dialect: dialect as never });
  const partner = fake.addPartner({ name: 'Doctor partner' });
  const open = { capacityCovers: 1000, minimumLeadTimeMinutes: 0 };
  const restaurant = fake.addRestaurant({
    partnerIds: [partner.partnerId],
    timezone: 'Europe/Brussels',
    availability: open,
  });
  fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'America/New_York', availability: open });
  // Two bookings of the partner's own: a list of page size 1 then shows a next link.
  const client = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
  const date = new Date(fake.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  for (const time of ['19:00', '20:00'])
    await client.reservations.create(restaurant.id, {
      start_time: { date, time },
      adults: 2,
      first_name: 'Ann',
    });
  const send = fake.clientOptions(partner).fetch;
  return {
    fake,
    partner,
    async doctor({ spendFirst = false, ...options } = {}) {
      const where = dir();
      const lines: string[] = [];
      let fetchFn: typeof fetch = send;
      if (spendFirst) {
        // Another process of the partner spent the second: doctor's first request meets a 429,
        // which shows the Retry-After form; the limit is lifted at once to keep the test fast.
        fake.setRateLimit(1);
        await send(
          new Request(`${fake.baseUrl}/api/v1/partnership/profile/`, {
            headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
          }),
        );
        fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
          const response = await send(input, init);
          if (response.status === 429) fake.setRateLimit(false);
          return response;
        };
      }
      const before = fake.requests.length;
      const result = await runDoctor({
        baseUrl: fake.baseUrl,
        partnerId: partner.partnerId,
        token: partner.apiToken,
        out: join(where, 'partner-dialect.json'),
        record: join(where, 'record.json'),
        probeWrites: true,
        requestsPerSecond: 200,
        fetch: fetchFn,
        print: (text) => lines.push(text),
        ...options,
      });
      const read = (name: string) => {
        try {
          return JSON.parse(readFileSync(join(where, name), 'utf8'));
        } catch {
          return undefined;
        }
      };
      const journalCount = fake.requests.slice(before).filter((entry) => entry.face === 'partner').length;
      return {
        result,
        output: lines.join('\n'),
        file: read('partner-dialect.json'),
        record: read('record.json'),
        journalCount,
      };
    },
  };
}

/** The shape of a JSON value: its keys and the types of its leaves, not the values (ids, times). */
export function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, shape(item)]),
    );
  return value === null ? null : typeof value;
}

/** Each probe and the shape of its answer: what "answers the same way" compares. */
export function answers(record: { exchanges: Exchange[] } | undefined): unknown[] {
  return (record?.exchanges ?? []).map((exchange) => ({
    request: `${exchange.request.method} ${exchange.request.path.replace(/\/\d+\//g, '/:id/')}${exchange.request.query.replace(/=\d+/g, '=N')}`,
    status: 'status' in exchange.response ? exchange.response.status : exchange.response.error,
    headers: 'status' in exchange.response ? Object.keys(exchange.response.headers).sort() : [],
    retryAfter:
      'status' in exchange.response
        ? exchange.response.headers['retry-after']?.replace(/\d/g, 'N')
        : undefined,
    body: 'status' in exchange.response ? shape(exchange.response.body) : undefined,
  }));
}
