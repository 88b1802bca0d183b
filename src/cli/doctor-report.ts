/**
 * Doctor's output: one line per check (pass, warn or fail, and what to do), the same as one JSON
 * document under `--json`, and the drift between two dialect files (`--compare`). Every text
 * passes the run's scrubber before it is shown: no token, credential or webhook token.
 * @module
 */
import { DIALECT_POINTS } from '../dialect/points.js';
import type { DialectFile } from '../dialect/file.js';

export type Verdict = 'pass' | 'warn' | 'fail' | 'info';

/** One line of the report. */
export interface CheckLine {
  check: string;
  verdict: Verdict;
  message: string;
  /** What to do about a warn or fail. */
  fix?: string | undefined;
}

/** One point that changed since the compared file. */
export interface Drift {
  point: string;
  was: string | number;
  now: string | number;
  evidence: string;
}

/** The lines of one run, printed as they come unless the output is JSON. */
export class Report {
  readonly lines: CheckLine[] = [];
  /** The lines outside the checks, as printed. */
  readonly notes: string[] = [];
  readonly #print: ((text: string) => void) | undefined;
  readonly #scrub: (text: string) => string;

  constructor(print: ((text: string) => void) | undefined, scrub: (text: string) => string) {
    this.#print = print;
    this.#scrub = scrub;
  }

  add(check: string, verdict: Verdict, message: string, fix?: string): void {
    const line: CheckLine = {
      check,
      verdict,
      message: this.#scrub(message),
      ...(fix ? { fix: this.#scrub(fix) } : {}),
    };
    this.lines.push(line);
    this.#print?.(formatLine(line));
  }

  /** A line outside the checks (what was created and cleaned, the requests spent). */
  note(text: string): void {
    const line = this.#scrub(text);
    this.notes.push(line);
    this.#print?.(line);
  }

  get failed(): boolean {
    return this.lines.some((line) => line.verdict === 'fail');
  }
}

const LABELS: Record<Verdict, string> = { pass: 'pass', warn: 'WARN', fail: 'FAIL', info: 'info' };

export function formatLine(line: CheckLine): string {
  return `${LABELS[line.verdict].padEnd(4)}  ${line.check}: ${line.message}${line.fix ? `\n      -> ${line.fix}` : ''}`;
}

/** Points settled in both files with different values (a point unknown now is not drift: it was not seen). */
export function compareDialects(before: DialectFile, now: DialectFile): Drift[] {
  const drift: Drift[] = [];
  const known = new Set<string>(DIALECT_POINTS);
  for (const [point, was] of Object.entries(before.points ?? {})) {
    if (!known.has(point) || !was || typeof was !== 'object') continue;
    const seen = (
      now.points as Record<string, { value: unknown; evidence: { request: string; status: number } }>
    )[point];
    if (!seen || seen.value === (was as { value: unknown }).value) continue;
    drift.push({
      point,
      was: (was as { value: string | number }).value,
      now: seen.value as string | number,
      evidence: `${seen.evidence.request} answered ${seen.evidence.status}`,
    });
  }
  return drift;
}

/** Settled points of the compared file that this run did not see again (not drift, but not re-checked). */
export function notRechecked(before: DialectFile, now: DialectFile): string[] {
  return Object.keys(before.points ?? {}).filter(
    (point) => DIALECT_POINTS.includes(point as never) && !(point in now.points),
  );
}
