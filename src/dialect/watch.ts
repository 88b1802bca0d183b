/**
 * What a client given a dialect does with each answer: reads the open points it shows and
 * compares them with the points the dialect settled. A departure is logged once per client and
 * point, or, under `strictDialect`, fails the call with {@link DialectDriftError}. Points the
 * dialect leaves unknown are not watched.
 * @module
 */
import { InputValidationError } from '../errors.js';
import { DialectDriftError } from './drift-error.js';
import type { Logger } from '../logger.js';
import { readDialect } from './file.js';
import { observeAnswer, type ObservedAnswer } from './observe.js';
import type { DialectPoint, DialectPointValues } from './points.js';

/** Watches answers against a dialect. */
export interface DialectWatch {
  /** Checks one answer; throws {@link DialectDriftError} under `strictDialect`. `url` is already redacted. */
  check(answer: ObservedAnswer, url: string): void;
  /** Checks an answer of the partner API (`target` under `apiPath`); other URLs are not the service's. */
  checkResponse(
    apiPath: string,
    method: string,
    target: URL,
    response: Response,
    body: unknown,
    url: string,
  ): void;
}

/** A watch for `dialect` (the client's option, checked here), or undefined when none was given. */
export function createDialectWatch(
  dialect: unknown,
  strict: unknown,
  logger: Logger,
): DialectWatch | undefined {
  if (strict !== undefined && typeof strict !== 'boolean')
    throw new InputValidationError([
      {
        field: 'strictDialect',
        path: ['strictDialect'],
        code: 'invalid_option',
        message: 'expected a boolean',
      },
    ]);
  if (dialect === undefined) return undefined;
  const resolved = readDialect(dialect, 'dialect');
  if (Array.isArray(resolved))
    throw new InputValidationError(
      resolved.map(({ field, message }) => ({
        field,
        path: field.split('.'),
        code: 'invalid_option',
        message,
      })),
    );
  const expected: Partial<Record<DialectPoint, DialectPointValues[DialectPoint]>> = resolved.points;
  if (Object.keys(expected).length === 0) return undefined;
  const warned = new Set<DialectPoint>();
  return {
    checkResponse(apiPath, method, target, response, body, url) {
      if (!target.pathname.startsWith(apiPath)) return;
      const path = target.pathname.slice(apiPath.length);
      const header = (name: string) => response.headers.get(name);
      this.check({ method, path, search: target.search, status: response.status, header, body }, url);
    },
    check(answer, url) {
      for (const seen of observeAnswer(answer)) {
        const want = expected[seen.key];
        if (want === undefined || want === seen.value) continue;
        const details = {
          point: seen.key,
          expected: want,
          received: seen.value,
          method: answer.method,
          url,
          status: answer.status,
        };
        if (strict === true) throw new DialectDriftError(details);
        if (warned.has(seen.key)) continue;
        warned.add(seen.key);
        logger.warn(
          `dialect drift at point "${seen.key}": expected ${String(want)}, received ${String(seen.value)} (${answer.method} ${url} answered ${answer.status}); run restaurant-partner doctor again`,
          details,
        );
      }
    },
  };
}
