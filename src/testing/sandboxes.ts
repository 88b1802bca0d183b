/**
 * Sandboxes: isolated worlds on one standalone server, so parallel suites (in any language) share
 * one process without seeing each other's data, clock, faults, rate limit, deliveries or journal.
 * Each answers its partner API under `/sandboxes/<id>` and its control API under
 * `/sandboxes/<id>/_fake/`; an idle one expires.
 * @module
 */
import { FakeBackend, type BackendOptions } from './backend/backend.js';
import { FakeError, invalid } from './backend/fake-error.js';
import { realClearTimeout, realSetTimeout } from './backend/fake-clock.js';
import type { RateLimitSetting } from './backend/rate-limit.js';
import { seedDemo } from './backend/seed.js';
import { MAX_SANDBOX_RESERVATIONS } from './backend/world-limits.js';
import type { MemoryLimits } from './backend/memory.js';
import { FieldCollector, isPlainObject, requireObject } from './backend/validation.js';
import type { SandboxHost } from './control/call.js';

/** Limits of the sandboxes of one server. */
export interface SandboxOptions {
  /** Most sandboxes alive at once (default 50); creating one more answers 409. */
  max?: number;
  /** A sandbox no request reached for this long (real time) ends (default 15 minutes). */
  idleTimeoutMs?: number;
}

interface Sandbox {
  backend: FakeBackend;
  lastUsedAt: number;
}

export const SANDBOX_PREFIX = '/sandboxes/';
/** Default limits: 50 sandboxes at once, each ending after 15 minutes without a request. */
export const DEFAULT_MAX_SANDBOXES = 50;
export const DEFAULT_SANDBOX_IDLE_MS = 15 * 60_000;

export class Sandboxes implements SandboxHost {
  readonly #sandboxes = new Map<string, Sandbox>();
  readonly #max: number;
  readonly #idleTimeoutMs: number;
  #sweptAt = 0;
  /** Ends idle sandboxes when no request comes to sweep them (unref'd; cleared on dispose). */
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    options: SandboxOptions,
    /** What every sandbox inherits from its server (delivery settings, logger, and its seed as the default). */
    private readonly inherited: Pick<BackendOptions, 'deliveries' | 'logger'> & {
      seed: 'demo' | 'none';
      memory: Required<MemoryLimits>;
      /** Bytes the server's own world holds (it shares the server's total with the sandboxes). */
      serverWorldBytes: () => number;
    },
  ) {
    this.#max = options.max ?? DEFAULT_MAX_SANDBOXES;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_SANDBOX_IDLE_MS;
  }

  /** The sandbox's world, marked as used; undefined when it does not exist or has expired. */
  use(id: string): FakeBackend | undefined {
    const sandbox = this.#sandboxes.get(id);
    const now = performance.now();
    // Expired sandboxes are swept at most once a second, not on every request (a walk over all of them).
    if (now - this.#sweptAt > 1000) this.#expire();
    if (!sandbox || now - sandbox.lastUsedAt > this.#idleTimeoutMs) return undefined;
    sandbox.lastUsedAt = now;
    return sandbox.backend;
  }

  create(input: unknown, origin: string): Record<string, unknown> {
    this.#expire();
    const body = requireObject(input, true);
    const fields = new FieldCollector();
    // Seeded like the server unless the body says otherwise.
    const seed = body.seed ?? this.inherited.seed;
    if (seed !== 'demo' && seed !== 'none') fields.add('seed', 'Expected "demo" or "none".');
    const rateLimit = body.rateLimit ?? 1;
    if (
      rateLimit !== false &&
      (typeof rateLimit !== 'number' || !(rateLimit > 0) || !Number.isFinite(rateLimit))
    )
      fields.add('rateLimit', 'Expected a positive number of requests per second, or false.');
    if (body.dialect !== undefined && !isPlainObject(body.dialect))
      fields.add('dialect', 'Expected an object such as {"list": "array"}.');
    fields.throwIfAny();
    if (this.#sandboxes.size >= this.#max) {
      throw new FakeError(
        409,
        `At most ${this.#max} sandboxes at once; delete one (DELETE /_fake/sandboxes/:id) or wait for an idle one to expire.`,
        { code: 'too_many_sandboxes' },
      );
    }
    let backend: FakeBackend;
    const id = `sbx_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
    try {
      backend = new FakeBackend({
        deliveries: this.inherited.deliveries,
        logger: this.inherited.logger && ((line) => this.inherited.logger!(`[${id}] ${line}`)),
        seed: seed === 'demo' ? seedDemo : undefined,
        rateLimit: rateLimit as RateLimitSetting,
        dialect: body.dialect as Record<string, never> | undefined,
        // The sandboxes of a server share one pool of reservations, so fifty of them cannot hold fifty fakes' worth.
        room: {
          sharedReservations: () => MAX_SANDBOX_RESERVATIONS - this.#reservationsHeld(),
          sharedBytes: () => ({
            held: this.inherited.serverWorldBytes() + this.heldBytes(),
            limit: this.inherited.memory.totalBytes,
          }),
        },
        memory: this.inherited.memory,
      });
    } catch (error) {
      // An unknown dialect key or value: the message names the key and the allowed values.
      if (error instanceof RangeError) throw invalid({ dialect: [error.message] });
      throw error;
    }
    backend.seedNow();
    this.#sandboxes.set(id, { backend, lastUsedAt: performance.now() });
    this.#armExpiry();
    return this.#describe(id, backend, origin, true);
  }

  remove(id: string): boolean {
    const sandbox = this.#sandboxes.get(id);
    if (!sandbox) return false;
    sandbox.backend.dispose();
    this.#sandboxes.delete(id);
    return true;
  }

  list(origin: string): Record<string, unknown>[] {
    this.#expire();
    return [...this.#sandboxes].map(([id, sandbox]) => this.#describe(id, sandbox.backend, origin, false));
  }

  /** Ends every sandbox (the server stops). */
  dispose(): void {
    realClearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    for (const id of [...this.#sandboxes.keys()]) this.remove(id);
  }

  /**
   * One timer for the earliest idle end: a sandbox nobody calls any more must still end on time
   * (its clock, retries and deliveries stop with it), not wait for the next request to sweep it.
   * A sandbox used since fires the timer early; the sweep then finds nothing and re-arms.
   */
  #armExpiry(): void {
    if (this.#expiryTimer !== undefined || this.#sandboxes.size === 0) return;
    let earliest = Infinity;
    for (const sandbox of this.#sandboxes.values()) earliest = Math.min(earliest, sandbox.lastUsedAt);
    const delay = Math.min(Math.max(0, earliest + this.#idleTimeoutMs - performance.now()) + 1, 2 ** 31 - 1);
    const timer = realSetTimeout(() => {
      this.#expiryTimer = undefined;
      this.#expire();
      this.#armExpiry();
    }, delay);
    (timer as { unref?: () => void }).unref?.();
    this.#expiryTimer = timer;
  }

  #describe(id: string, backend: FakeBackend, origin: string, withData: boolean): Record<string, unknown> {
    const url = `${origin}${SANDBOX_PREFIX}${id}`;
    return {
      id,
      url,
      controlUrl: `${url}/_fake`,
      ...(withData ? { partners: backend.partners(), restaurants: backend.restaurants() } : {}),
    };
  }

  /** Estimated bytes all sandboxes hold together. */
  heldBytes(): number {
    let held = 0;
    for (const sandbox of this.#sandboxes.values()) held += sandbox.backend.heldBytes;
    return held;
  }

  /** Reservations all sandboxes hold together. */
  #reservationsHeld(): number {
    let held = 0;
    for (const sandbox of this.#sandboxes.values()) held += sandbox.backend.state.reservations.size;
    return held;
  }

  #expire(): void {
    const now = performance.now();
    this.#sweptAt = now;
    for (const [id, sandbox] of this.#sandboxes)
      if (now - sandbox.lastUsedAt > this.#idleTimeoutMs) this.remove(id);
  }
}
