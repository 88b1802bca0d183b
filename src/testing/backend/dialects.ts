/**
 * Dialect switches: one per point the spec leaves open (docs/where-the-spec-is-silent.md), so a
 * partner can prove its code survives every plausible answer of the live service.
 * @module
 */
import { isDialectFile, readDialect, type DialectFile } from '../../dialect/file.js';
import {
  DIALECT_POINT_DESCRIPTIONS,
  DIALECT_POINT_VALUES,
  DIALECT_POINTS,
  type DialectPointValues as Dialect,
} from '../../dialect/points.js';

// How the fake answers where the spec is silent: one switch per open point (the same keys
// `restaurant-partner doctor` learns from the live service). The same type under the fake's name
// (a re-export, not a new alias, so that a partner's declarations can write it down).
export type { Dialect };

/** The default dialect: the most likely behaviour of the live service. */
export const defaultDialect: Readonly<Dialect> = Object.freeze(
  Object.fromEntries(DIALECT_POINTS.map((key) => [key, DIALECT_POINT_VALUES[key][0]])) as unknown as Dialect,
);

/** Every dialect key with its values, the default first (`--help` and the README are made from it). */
export const DIALECT_VALUES: { readonly [Key in keyof Dialect]: readonly Dialect[Key][] } =
  DIALECT_POINT_VALUES;

/** What each key decides, for `--help`-like listings and the README. */
export const DIALECT_DESCRIPTIONS: { readonly [Key in keyof Dialect]: string } = DIALECT_POINT_DESCRIPTIONS;

/** What `createFakeService({ dialect })` takes: switches, or the parsed `partner-dialect.json`. */
export type DialectInput = Partial<Record<keyof Dialect, unknown>> | DialectFile;

/**
 * Checks a partial dialect (values may be strings, as from the command line) and fills the
 * defaults. Throws a RangeError naming the key and the allowed values. Given the parsed
 * `partner-dialect.json`, takes the points it settled; the points it lists as unknown keep the
 * default.
 */
export function resolveDialect(input: DialectInput = {}): Dialect {
  if (isDialectFile(input)) {
    const read = readDialect(input, 'dialect');
    if (Array.isArray(read))
      throw new RangeError(read.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
    return { ...defaultDialect, ...read.points };
  }
  const dialect: Record<string, unknown> = { ...defaultDialect };
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    const allowed = (DIALECT_VALUES as Record<string, readonly unknown[]>)[key];
    if (!allowed) {
      throw new RangeError(
        `unknown dialect key "${key}"; known keys: ${Object.keys(DIALECT_VALUES).join(', ')}`,
      );
    }
    // Compared as text: the command line and the control API send every value as a string.
    const given = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const value = allowed.find((candidate) => String(candidate) === given);
    if (value === undefined) {
      throw new RangeError(`dialect ${key} must be one of ${allowed.join(', ')} (got "${given}")`);
    }
    dialect[key] = value;
  }
  return dialect as unknown as Dialect;
}

/**
 * Parses command-line `key=value` pairs into a dialect (defaults filled), or with
 * `fillDefaults: false` into just the keys given, checked.
 */
export function parseDialectArguments(pairs: readonly string[], fillDefaults = true): Partial<Dialect> {
  const input: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new RangeError(`--dialect expects key=value (got "${pair}")`);
    input[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  const dialect = resolveDialect(input);
  if (fillDefaults) return dialect;
  return Object.fromEntries(Object.keys(input).map((key) => [key, dialect[key as keyof Dialect]]));
}
