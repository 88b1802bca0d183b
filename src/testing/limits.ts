/**
 * Every limit the fake enforces, in one table read from the constants its checks use; the
 * README's table of limits is tested against it. Lengths count characters (Unicode code points),
 * as the client's checks do, never UTF-16 units.
 * @module
 */
import { MAX_NAMED_SNAPSHOTS } from './backend/backend.js';
import {
  MAX_DELIVERY_LOG,
  MAX_DELIVERY_RESPONSE_BYTES,
  MAX_PENDING_DELIVERIES,
} from './backend/deliveries.js';
import { MAX_CHAOS_DELAY_MS } from './backend/chaos.js';
import * as world from './backend/world-limits.js';
import {
  MAX_COMMIT_DELAY_MS,
  MAX_FAULT_BODY_CHARACTERS,
  MAX_FAULT_HEADERS,
  MAX_FAULT_TIMES,
  MAX_LATENCY_MS,
} from './backend/faults.js';
import { DEFAULT_JOURNAL_LIMIT } from './backend/journal.js';
import { DEFAULT_TOTAL_BYTES, DEFAULT_WORLD_BYTES, DELIVERY_LOG_SHARE } from './backend/memory.js';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_PROFILE_NAME_LENGTH,
  MAX_WEBSITE_URL_LENGTH,
} from './backend/partners.js';
import * as reservations from './backend/reservations.js';
import { TEXT_RULES } from './backend/guest-texts.js';
import { RESTAURANT_TEXT_LIMITS } from './backend/restaurants.js';
import { MAX_JSON_DEPTH } from './backend/validation.js';
import { MAX_WEBHOOK_NAME_LENGTH, MAX_WEBHOOK_URL_LENGTH } from './backend/webhooks.js';
import { MAX_BODY_BYTES } from './http.js';
import { DEFAULT_MAX_SANDBOXES, DEFAULT_SANDBOX_IDLE_MS } from './sandboxes.js';

/** One limit: what it applies to, its value, and whether the spec states it. */
export interface FakeLimit {
  applies: string;
  limit: string;
  from: 'spec' | 'fake';
}

const characters = (count: number) => `${count.toLocaleString('en')} characters`;
const mebibytes = (bytes: number) => `${(bytes / (1024 * 1024)).toLocaleString('en')} MiB`;

/** One row per text field's limit, fields with the same limit on one row. */
function textLimits(): FakeLimit[] {
  const rows: (FakeLimit & { fields: string[] })[] = [];
  for (const rule of TEXT_RULES) {
    if (rule.max === undefined) continue;
    const limit = rule.shape ? `${characters(rule.max)}, ${rule.shape}` : characters(rule.max);
    const same = rows.find((row) => row.limit === limit && row.from === rule.from);
    if (same) same.fields.push(rule.field);
    else rows.push({ applies: '', limit, from: rule.from, fields: [rule.field] });
  }
  return rows.map(({ fields, limit, from }) => ({
    applies: `reservation ${fields.map((field) => `\`${field}\``).join(', ')}`,
    limit,
    from,
  }));
}

export const FAKE_LIMITS: readonly FakeLimit[] = [
  {
    applies: 'reservation `adults`',
    limit: `${reservations.ADULTS.min} to ${reservations.ADULTS.max}`,
    from: 'spec',
  },
  {
    applies: 'reservation `children`',
    limit: `${reservations.CHILDREN.min} to ${reservations.CHILDREN.max}, default 0`,
    from: 'spec',
  },
  ...textLimits(),
  {
    applies: 'reservation `metadata`',
    limit: `a JSON object of at most ${characters(reservations.MAX_METADATA_JSON_LENGTH)} of JSON`,
    from: 'fake',
  },
  {
    applies: '`Idempotency-Key` header',
    limit: `1 to ${characters(reservations.MAX_IDEMPOTENCY_KEY_LENGTH)}`,
    from: 'fake',
  },
  {
    applies: 'reservation list `page_size`',
    limit: `default ${reservations.DEFAULT_PAGE_SIZE}, larger values clamped to ${reservations.MAX_PAGE_SIZE}`,
    from: 'fake',
  },
  { applies: 'profile `name`', limit: characters(MAX_PROFILE_NAME_LENGTH), from: 'fake' },
  {
    applies: 'profile `website_url`',
    limit: `${characters(MAX_WEBSITE_URL_LENGTH)}, http or https`,
    from: 'fake',
  },
  { applies: 'profile `description.fr|nl|en|de`', limit: characters(MAX_DESCRIPTION_LENGTH), from: 'fake' },
  {
    applies: 'webhook `url`',
    limit: `${characters(MAX_WEBHOOK_URL_LENGTH)}, http or https, no user:password@`,
    from: 'spec',
  },
  { applies: 'webhook `name`', limit: characters(MAX_WEBHOOK_NAME_LENGTH), from: 'spec' },
  {
    applies: 'restaurant `schema_name` (control API)',
    limit: characters(RESTAURANT_TEXT_LIMITS.schema_name),
    from: 'spec',
  },
  {
    applies: 'restaurant `display_name` / `address` / `website` (control API)',
    limit: `${RESTAURANT_TEXT_LIMITS.display_name} / ${RESTAURANT_TEXT_LIMITS.address} / ${RESTAURANT_TEXT_LIMITS.website} characters`,
    from: 'fake',
  },
  {
    applies: 'request body',
    limit: `${MAX_BODY_BYTES.toLocaleString('en')} bytes (413 beyond), JSON nested at most ${MAX_JSON_DEPTH} deep`,
    from: 'fake',
  },
  {
    applies: 'fault `latencyMs` / `times` / `commitDelayMs`',
    limit: `${MAX_LATENCY_MS.toLocaleString('en')} ms / ${MAX_FAULT_TIMES.toLocaleString('en')} / ${MAX_COMMIT_DELAY_MS.toLocaleString('en')} ms (31 days)`,
    from: 'fake',
  },
  {
    applies: 'fault `headers` / `body`',
    limit: `${MAX_FAULT_HEADERS} headers that HTTP can carry / ${characters(MAX_FAULT_BODY_CHARACTERS)} of JSON`,
    from: 'fake',
  },
  { applies: "the fake's clock", limit: 'up to 9999-12-31T23:59:59.999Z', from: 'fake' },
  {
    applies: 'delivery log / request journal',
    limit: `the latest ${MAX_DELIVERY_LOG.toLocaleString('en')} attempts, within 1/${1 / DELIVERY_LOG_SHARE} of the world's bytes (16 MiB by default) / ${DEFAULT_JOURNAL_LIMIT} requests (\`journalLimit\`), oldest dropped first`,
    from: 'fake',
  },
  {
    applies: 'named snapshots (control API)',
    limit: `${MAX_NAMED_SNAPSHOTS}, holding ${world.MAX_SNAPSHOT_RESERVATIONS.toLocaleString('en')} reservations together; more are refused (409 \`limit_reached\`) until \`reset\``,
    from: 'fake',
  },
  {
    applies: 'reservations / partners / restaurants in one fake',
    limit: `${world.MAX_RESERVATIONS.toLocaleString('en')} / ${world.MAX_PARTNERS.toLocaleString('en')} / ${world.MAX_RESTAURANTS.toLocaleString('en')}; one more is refused (409 \`limit_reached\`)`,
    from: 'fake',
  },
  {
    applies: 'data one world holds (the fake, or one sandbox) / all worlds of one server together',
    limit: `${mebibytes(DEFAULT_WORLD_BYTES)} / ${mebibytes(DEFAULT_TOTAL_BYTES)} (\`memoryLimits\`), estimated: a small booking about 2 kB, one at the largest field sizes up to 380 kB; a write beyond is refused (409 \`limit_reached\` naming the limit), and a delivery waiting for a retry is dropped and logged`,
    from: 'fake',
  },
  {
    applies: 'webhooks per partner',
    limit: `${world.MAX_WEBHOOKS_PER_PARTNER}; one more is refused (409 \`limit_reached\`)`,
    from: 'fake',
  },
  {
    applies: 'faults waiting / operations waiting for a delayed commit',
    limit: `${world.MAX_PENDING_FAULTS.toLocaleString('en')} / ${world.MAX_PENDING_COMMITS.toLocaleString('en')} (counting the \`times\` of pending \`commitDelayMs\` faults); a fault beyond is refused (409 \`limit_reached\`)`,
    from: 'fake',
  },
  {
    applies: 'webhook delivery attempt',
    limit: `the \`deliveries.timeoutMs\` time limit (default 10 s) from sending to the end of the answer; at most ${MAX_DELIVERY_RESPONSE_BYTES.toLocaleString('en')} bytes of the answer read and kept`,
    from: 'fake',
  },
  {
    applies: 'deliveries waiting for an attempt',
    limit: `${MAX_PENDING_DELIVERIES.toLocaleString('en')}; beyond, a new delivery is dropped and logged as such`,
    from: 'fake',
  },
  {
    applies: 'delivery chaos `maxDelayMs`',
    limit: `${MAX_CHAOS_DELAY_MS.toLocaleString('en')} ms (one day)`,
    from: 'fake',
  },
  {
    applies: 'sandboxes',
    limit: `${DEFAULT_MAX_SANDBOXES} at once, each ending after ${DEFAULT_SANDBOX_IDLE_MS / 60_000} idle minutes (configurable), holding ${world.MAX_SANDBOX_RESERVATIONS.toLocaleString('en')} reservations together; each sandbox has every limit above`,
    from: 'fake',
  },
];
