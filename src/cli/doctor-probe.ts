/**
 * What doctor sees of the service: a `fetch` handed to its `PartnerClient` (so every probe keeps
 * the client's limiter, retries and redaction) that counts each request, keeps a redacted record
 * of it and its answer (`--record`), reads the open points each answer shows with the same reader
 * the client uses (`observeAnswer`), and notes the service's `Date` for the clock check.
 * @module
 */
import { DIALECT_POINTS, pointValue, type DialectPoint } from '../dialect/points.js';
import type { DialectFile, DialectFilePoint } from '../dialect/file.js';
import { observeAnswer } from '../dialect/observe.js';
import { rememberWebhookToken, type Secrets } from '../transport/secrets.js';
import type { RateLimiter } from '../transport/rate-limiter.js';
import { PERSONAL_FIELDS } from '../resources/reservation-fields.js';

/** Largest answer body kept for the record and the dialect (the client reads its own copy under its own limit). */
const MAX_RECORDED_BYTES = 256 * 1024;
/** Response headers worth keeping: none carries a credential. */
const KEPT_HEADERS = [
  'content-type',
  'date',
  'retry-after',
  'idempotent-replayed',
  'location',
  'allow',
  'server',
  'via',
];
const TOKEN_FIELDS = new Set(['auth_token', 'token', 'secret', 'authToken']);
/** Guests' personal fields: a transcript is a CI artifact, so they are kept as their shape only. */
const GUEST_FIELDS: ReadonlySet<string> = new Set(PERSONAL_FIELDS);

/** One probe and its answer, redacted. */
export interface Exchange {
  at: string;
  request: { method: string; path: string; query: string; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown } | { error: string };
}

/** One point seen differently by two answers: it stays unknown. */
export interface PointConflict {
  key: DialectPoint;
  values: (string | number)[];
}

/** The service's clock as seen in one answer. */
export interface ServerDate {
  sentAt: number;
  receivedAt: number;
  date: string;
}

export class Probe {
  /** Requests sent (every attempt and redirect). */
  requests = 0;
  readonly exchanges: Exchange[] = [];
  readonly points = new Map<DialectPoint, DialectFilePoint>();
  readonly conflicts = new Map<DialectPoint, Set<string | number>>();
  /** Points answered in a form outside their known values (left unknown). */
  readonly unlisted = new Map<DialectPoint, Set<string | number>>();
  serverDate: ServerDate | undefined;
  /** Content types of answers that were not JSON (a proxy's page), with the path. */
  readonly foreignAnswers: { path: string; status: number; contentType: string; start: string }[] = [];
  readonly #pending = new Set<Promise<void>>();
  readonly #secrets: Secrets[];
  readonly #apiPath: string;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  // The last reservation create as sent (credentials included): kept in memory only, to send it
  // once more for the `idempotencyKey` point, never written down.
  #lastCreate: Request | undefined;

  readonly #gapMs: number;
  #lastAnswerAt = -Infinity;

  /**
   * `gapMs`: the least time between an answer and the next request. The client's limiter spaces
   * requests by when they leave; a service that admits a request late (a cold start, a queue)
   * counts it later than that, and the next one, on time by our clock, meets a 429. Doctor's
   * probes run one at a time, so spacing each from the previous answer costs it little.
   */
  constructor(options: {
    fetch: typeof fetch;
    secrets: Secrets[];
    baseUrl: string;
    gapMs?: number;
    now?: () => number;
  }) {
    this.#fetch = options.fetch;
    this.#gapMs = options.gapMs ?? 0;
    this.#secrets = options.secrets;
    this.#apiPath = `${new URL(options.baseUrl).pathname.replace(/\/+$/, '')}/api/v1/partnership`;
    this.#now = options.now ?? Date.now;
  }

  /** The `fetch` to give the client. */
  readonly fetch: typeof fetch = async (input, init) => {
    this.requests += 1;
    const request = new Request(input, init);
    await this.#spaced(request.signal);
    const url = new URL(request.url);
    const sentText = request.body ? await request.clone().text() : '';
    if (request.method === 'POST' && /\/restaurants\/[^/]+\/reservations\/$/.test(url.pathname))
      this.#lastCreate = request.clone();
    const body = sentText === '' ? undefined : parseJson(sentText);
    const sentAt = this.#now();
    const entry: Exchange = {
      at: new Date(sentAt).toISOString(),
      request: {
        method: request.method,
        path: url.pathname.startsWith(this.#apiPath)
          ? url.pathname.slice(this.#apiPath.length)
          : url.pathname,
        query: this.scrubText(url.search),
        ...(body === undefined ? {} : { body: this.#redact(body) }),
      },
      response: { error: 'no answer' },
    };
    this.exchanges.push(entry);
    let response: Response;
    try {
      response = await this.#fetch(request);
    } catch (error) {
      this.#lastAnswerAt = this.#now();
      entry.response = { error: this.scrubText(describeFailure(error)) };
      throw error;
    }
    const receivedAt = this.#now();
    this.#lastAnswerAt = receivedAt;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = this.scrubText(value);
    }
    entry.response = { status: response.status, headers, body: undefined };
    const date = response.headers.get('date');
    if (date && !this.serverDate && response.status < 500) this.serverDate = { sentAt, receivedAt, date };
    const reading = this.#read(response.clone(), entry, url).finally(() => this.#pending.delete(reading));
    this.#pending.add(reading);
    return response;
  };

  async #spaced(signal: AbortSignal): Promise<void> {
    const wait = this.#lastAnswerAt + this.#gapMs - this.#now();
    if (!(wait > 0)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, wait);
      function done() {
        signal.removeEventListener('abort', abort);
        resolve();
      }
      function abort() {
        clearTimeout(timer);
        reject(signal.reason);
      }
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  async #read(response: Response, entry: Exchange, url: URL): Promise<void> {
    const text = await readLimited(response);
    const contentType = response.headers.get('content-type') ?? '';
    let body: unknown = text === '' ? undefined : parseJson(text);
    if (text !== '' && body === undefined) {
      body = text;
      this.foreignAnswers.push({
        path: entry.request.path,
        status: response.status,
        contentType: contentType || '(none)',
        start: this.scrubText(text.slice(0, 60).replace(/\s+/g, ' ')),
      });
    }
    rememberTokens(body);
    if ('status' in entry.response) entry.response.body = this.#redact(body);
    if (!url.pathname.startsWith(this.#apiPath)) return;
    for (const seen of observeAnswer({
      method: entry.request.method,
      path: entry.request.path,
      search: url.search,
      status: response.status,
      header: (name) => response.headers.get(name),
      body,
    })) {
      this.settle(seen.key, seen.value, {
        request: `${entry.request.method} /api/v1/partnership${entry.request.path}`,
        status: response.status,
        excerpt: this.scrubText(seen.excerpt),
      });
    }
  }

  /** Records a point seen (first sight kept as evidence; a different later value makes it a conflict). */
  settle(key: DialectPoint, raw: string | number, evidence: DialectFilePoint['evidence']): void {
    const value = pointValue(key, raw);
    const known = this.points.get(key);
    if (value === undefined) {
      // A form this version has no value for: left unknown, and said so (not a disagreement).
      const forms = this.unlisted.get(key) ?? new Set();
      this.unlisted.set(key, forms.add(raw));
      return;
    }
    if (known && known.value !== value) {
      const values = this.conflicts.get(key) ?? new Set(known ? [known.value] : []);
      values.add(raw);
      this.conflicts.set(key, values);
      return;
    }
    if (!known) this.points.set(key, { value, evidence, at: new Date(this.#now()).toISOString() });
  }

  /**
   * Sends the last reservation create again, byte for byte (its `Idempotency-Key` included), in a
   * slot of the client's limiter; answers its status and parsed body.
   */
  async resendLastCreate(
    limiter: RateLimiter | undefined,
    signal: AbortSignal,
  ): Promise<{ status: number; body: unknown }> {
    if (!this.#lastCreate) throw new Error('no create to send again');
    const slot = (await limiter?.acquire({ signal, priority: 'interactive' })) ?? undefined;
    try {
      const response = await this.fetch(this.#lastCreate.clone(), { signal });
      slot?.end('answered');
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : parseJson(text) };
    } catch (error) {
      slot?.end('failed');
      throw error;
    }
  }

  /** The status of the last answer (0 when it had none). */
  lastStatus(): number {
    const last = this.exchanges.at(-1)?.response;
    return last && 'status' in last ? last.status : 0;
  }

  /** Waits for every answer still being read. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** The dialect file of what was seen: conflicting points are unknown, never guessed. */
  dialectFile(learnedAt: string): DialectFile {
    const points: Record<string, DialectFilePoint> = {};
    for (const key of DIALECT_POINTS) {
      const point = this.points.get(key);
      if (point && !this.conflicts.has(key) && !this.unlisted.has(key)) points[key] = point;
    }
    return {
      version: 1,
      learnedAt,
      points,
      unknown: DIALECT_POINTS.filter((key) => !(key in points)),
    };
  }

  /** `text` without any secret this run knows (API token, Basic credential, webhook tokens seen). */
  scrubText(text: string): string {
    return this.#secrets.reduce((scrubbed, secrets) => secrets.scrubText(scrubbed), text);
  }

  /** A copy of an answer's body fit to write down: secrets scrubbed, token fields and guests' details hidden. */
  #redact(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.scrubText(value);
    if (typeof value !== 'object' || value === null || depth > 32) return value;
    if (Array.isArray(value)) return value.map((item) => this.#redact(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        this.scrubText(key),
        TOKEN_FIELDS.has(key) && typeof item === 'string'
          ? '[REDACTED]'
          : key === 'url' && typeof item === 'string'
            ? this.scrubText(item.replace(/\?.*$/s, (query) => (query ? '?[REDACTED]' : '')))
            : GUEST_FIELDS.has(key) && typeof item === 'string'
              ? '[guest]'
              : this.#redact(item, depth + 1),
      ]),
    );
  }
}

function rememberTokens(body: unknown): void {
  const records: readonly unknown[] = Array.isArray(body) ? body : [body];
  for (const record of records)
    if (typeof record === 'object' && record !== null)
      for (const [key, value] of Object.entries(record))
        if (TOKEN_FIELDS.has(key)) rememberWebhookToken(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as text, at most {@link MAX_RECORDED_BYTES}; '' when it cannot be read (the client reports that). */
async function readLimited(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_RECORDED_BYTES) {
        await reader.cancel().catch(() => undefined);
        break;
      }
      chunks.push(value);
    }
  } catch {
    return '';
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** A network failure in a few words: its name and the first error code of its cause chain. */
export function describeFailure(error: unknown): string {
  const code = errorCode(error);
  const name = error instanceof Error ? error.name : 'Error';
  return code ? `${name} (${code})` : name;
}

/** The first `code` in an error's cause chain (undici nests the system error). */
export function errorCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 8) return undefined;
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string' && !/^UND_ERR_SOCKET$/.test(record.code)) return record.code;
  for (const inner of [record.cause, ...(Array.isArray(record.errors) ? (record.errors as unknown[]) : [])]) {
    const found = errorCode(inner, depth + 1);
    if (found) return found;
  }
  return typeof record.code === 'string' ? record.code : undefined;
}
