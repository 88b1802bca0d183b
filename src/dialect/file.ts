/**
 * `partner-dialect.json`: what `restaurant-partner doctor` learned of the live service, one entry
 * per open point it settled (with the answer that settled it) and the points it could not settle.
 * Read here for the client (`PartnerClient({ dialect })`) and the fake (`createFakeService({ dialect })`).
 * @module
 */
import {
  DIALECT_POINT_VALUES,
  DIALECT_POINTS,
  isDialectPoint,
  pointValue,
  type DialectPoint,
  type DialectPointValues,
} from './points.js';

/** The version of the file's shape this package writes and reads. */
export const DIALECT_FILE_VERSION = 1;

/** The answer that settled a point: never a credential or a token (they are redacted before writing). */
export interface DialectEvidence {
  /** Method and path of the probe, such as `GET /api/v1/partnership/profile/`. */
  request: string;
  /** The status it was answered with. */
  status: number;
  /** The part of the answer that shows the point (a header, a field, a body's start). */
  excerpt: string;
}

/** One settled point. */
export interface DialectFilePoint<Value = string | number> {
  value: Value;
  evidence: DialectEvidence;
  /** When it was seen (ISO 8601). */
  at: string;
}

/** The file `doctor` writes (`--out`, default `partner-dialect.json`). */
export interface DialectFile {
  version: number;
  /** When doctor ran (ISO 8601). */
  learnedAt: string;
  /** Settled points by key; keys this package does not know are kept and ignored. */
  points: { [Key in DialectPoint]?: DialectFilePoint<DialectPointValues[Key]> } & Record<
    string,
    DialectFilePoint<unknown>
  >;
  /** Points doctor could not settle: never enforced, and the fake keeps its default for them. */
  unknown: string[];
}

/** A dialect as the client and the fake use it: the settled points, checked. */
export interface ResolvedDialect {
  points: Partial<DialectPointValues>;
  unknown: DialectPoint[];
}

/** One problem of a dialect given as input: the field (dotted) and the rule it breaks. */
export interface DialectProblem {
  field: string;
  message: string;
}

/** True when `input` has the file's shape (`points`), rather than plain `{ key: value }` switches. */
export const isDialectFile = (input: unknown): input is DialectFile =>
  typeof input === 'object' && input !== null && 'points' in input;

/** The file's version, points (each handed to `take`) and unknown list; answers the unknown points. */
function readFileShape(
  file: Partial<DialectFile>,
  field: string,
  take: (key: string, raw: unknown, where: string) => void,
  problems: DialectProblem[],
): DialectPoint[] {
  if (typeof file.version !== 'number' || file.version > DIALECT_FILE_VERSION)
    problems.push({
      field: `${field}.version`,
      message: `expected a version up to ${DIALECT_FILE_VERSION} (got ${JSON.stringify(file.version)})`,
    });
  if (typeof file.points !== 'object' || file.points === null || Array.isArray(file.points))
    problems.push({ field: `${field}.points`, message: 'expected an object of points' });
  else
    for (const [key, entry] of Object.entries(file.points)) {
      if (typeof entry === 'object' && entry !== null && 'value' in entry)
        take(key, (entry as { value: unknown }).value, `${field}.points.${key}.value`);
      else if (isDialectPoint(key))
        problems.push({ field: `${field}.points.${key}`, message: 'expected { value, evidence, at }' });
    }
  if (file.unknown === undefined) return [];
  if (!Array.isArray(file.unknown)) {
    problems.push({ field: `${field}.unknown`, message: 'expected a list of point names' });
    return [];
  }
  return file.unknown.filter((key): key is DialectPoint => typeof key === 'string' && isDialectPoint(key));
}

/**
 * Reads a dialect: `partner-dialect.json`'s parsed object, or plain `{ key: value }` switches.
 * Returns the problems instead when a known point has a value outside its list, or the shape is
 * wrong. Keys of points this package does not know are ignored (a newer doctor may write more).
 * `field` prefixes each problem's field (`dialect`).
 */
export function readDialect(input: unknown, field: string): ResolvedDialect | DialectProblem[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return [
      { field, message: 'expected the parsed partner-dialect.json object, or { key: value } switches' },
    ];
  const problems: DialectProblem[] = [];
  const points: Record<string, unknown> = {};
  const unknown: DialectPoint[] = [];
  const take = (key: string, raw: unknown, where: string) => {
    if (!isDialectPoint(key)) return;
    const value = pointValue(key, raw);
    if (value === undefined)
      problems.push({
        field: where,
        message: `${key} must be one of ${DIALECT_POINT_VALUES[key].join(', ')} (got ${JSON.stringify(raw) ?? String(raw)})`,
      });
    else points[key] = value;
  };
  if (isDialectFile(input)) {
    unknown.push(...readFileShape(input, field, take, problems));
  } else {
    for (const [key, raw] of Object.entries(input)) {
      if (raw === undefined) continue;
      if (!isDialectPoint(key)) {
        problems.push({
          field: `${field}.${key}`,
          message: `unknown dialect key; known keys: ${DIALECT_POINTS.join(', ')}`,
        });
        continue;
      }
      take(key, raw, `${field}.${key}`);
    }
  }
  if (problems.length > 0) return problems;
  return {
    points,
    unknown: unknown.filter((key) => !(key in points)),
  };
}
