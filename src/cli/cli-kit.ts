/**
 * What every dev-loop command shares: option parsing with `--help` and `--json`, the exit codes
 * (0 ok, 1 a check failed or the source went away, 2 usage), where the fake is, and output as
 * lines or NDJSON with every secret the command knows of redacted. Never prompts.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { secretsPattern } from '../transport/secrets.js';

/** A usage mistake: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure the command explains in one line and exits 1 for (the source went away, a refusal). */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
}

type Options = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** One command: its name, its usage text (with an example), its options. */
export interface CommandDefinition {
  name: string;
  usage: string;
  options: Options;
  /** Most words after the options (default 0). */
  positionals?: number;
}

/** Where the fake is: `--url`, else `PARTNER_BASE_URL`, else the standalone fake's default address. */
export const DEFAULT_FAKE_URL = 'http://127.0.0.1:4010';

const COMMON: Options = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

/**
 * Runs a command: parses `args`, answers `--help`, and turns what `body` returns or throws into
 * the exit code: a `UsageError` is 2 (with the usage), any other error 1 (one line, redacted).
 */
export async function runCommand(
  definition: CommandDefinition,
  args: string[],
  body: (values: OptionValues, positionals: string[]) => Promise<number>,
): Promise<void> {
  const prefix = `restaurant-partner ${definition.name}`;
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args,
        options: { ...COMMON, ...definition.options },
        allowPositionals: (definition.positionals ?? 0) > 0,
        strict: true,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (parsed.values.help) {
      process.stdout.write(`${definition.usage}\n`);
      process.exitCode = 0;
      return;
    }
    if (parsed.positionals.length > (definition.positionals ?? 0))
      throw new UsageError(`unexpected argument "${parsed.positionals.at(-1)}"`);
    process.exitCode = await body(parsed.values as OptionValues, parsed.positionals);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${prefix}: ${error.message}\n\n${definition.usage}\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${prefix}: ${redactEnvironmentSecrets(message)}\n`);
    process.exitCode = 1;
  }
}

/** A string option, or undefined. */
export function text(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A list option (repeatable, each also split on commas). */
export function list(values: OptionValues, name: string): string[] {
  const value = values[name];
  const given = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return given.flatMap((entry) => entry.split(',').map((part) => part.trim())).filter(Boolean);
}

/** A whole number option within bounds, or the default; a UsageError names it otherwise. */
export function whole(
  values: OptionValues,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const given = text(values, name);
  if (given === undefined) return fallback;
  const value = Number(given);
  if (!/^\d+$/.test(given) || value < min || value > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${given}")`);
  return value;
}

/** An absolute http(s) URL option; a UsageError names it otherwise. */
export function httpUrl(value: string | undefined, name: string): string {
  if (value === undefined) throw new UsageError(`${name} is required`);
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new UsageError(`${name} must be an absolute http or https URL (got "${value}")`);
  return value;
}

/** The fake's base URL (a sandbox's included): `--url`, `PARTNER_BASE_URL`, or the default address. */
export function fakeUrlOf(values: OptionValues): string {
  const given = text(values, 'url') ?? process.env.PARTNER_BASE_URL ?? DEFAULT_FAKE_URL;
  return httpUrl(given, text(values, 'url') === undefined ? 'PARTNER_BASE_URL' : '--url').replace(/\/+$/, '');
}

/** Secrets a command may meet in what it prints: the environment's, and any it learns. */
export function createRedactor(initial: Iterable<string | null | undefined> = []) {
  const secrets = new Set<string>();
  let pattern: RegExp | undefined;
  const add = (values: Iterable<string | null | undefined>) => {
    const before = secrets.size;
    for (const value of values) if (typeof value === 'string' && value.length >= 4) secrets.add(value);
    if (secrets.size !== before) pattern = secretsPattern(secrets);
  };
  add([process.env.PARTNER_TOKEN, process.env.PARTNER_WEBHOOK_TOKEN, ...initial]);
  return {
    add,
    /**
     * `text` with every form of every known secret replaced by `[REDACTED]`, and what looks like
     * one whoever's it is: a Bearer or Basic credential, a JSON value under a token-like key (a
     * receiver that echoes a delivery's Authorization header in its answer).
     */
    redact: (value: string): string =>
      (pattern ? value.replace(pattern, '[REDACTED]') : value)
        .replace(/\b(bearer|basic)(\s+|%20|\+)[A-Za-z0-9._~+/=-]{4,}/gi, '$1$2[REDACTED]')
        .replace(
          /("(?:authorization|auth_token|authToken|api_token|apiToken|token|password|secret)"\s*:\s*")(?:[^"\\]|\\.)*"/gi,
          '$1[REDACTED]"',
        ),
  };
}

function redactEnvironmentSecrets(message: string): string {
  return createRedactor().redact(message);
}

/** Writes one record: its JSON on one line under `--json`, else its human line. Both redacted. */
export function createOutput(json: boolean, redact: (text: string) => string = (value) => value) {
  return (record: unknown, line: string): void => {
    process.stdout.write(`${redact(json ? JSON.stringify(record) : line)}\n`);
  };
}

/** Parses `key=value` pairs (`--set`): values read as JSON where they are (numbers, booleans), dotted keys nest. */
export function keyValues(pairs: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--set takes key=value (got "${pair}")`);
    const path = pair.slice(0, at).split('.');
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(raw)) value = JSON.parse(raw);
    let target = result;
    for (const [index, key] of path.entries()) {
      if (key === '' || key === '__proto__' || key === 'constructor' || key === 'prototype')
        throw new UsageError(`--set: "${pair}" has a key that cannot be set`);
      if (index === path.length - 1) target[key] = value;
      else {
        const next = target[key];
        target = (typeof next === 'object' && next !== null ? next : (target[key] = {})) as Record<
          string,
          unknown
        >;
      }
    }
  }
  return result;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** An AbortSignal that aborts on SIGINT, SIGTERM or `abort()` (the listeners go with `release`). */
export function stopSignal(): { signal: AbortSignal; abort(): void; release(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    abort: stop,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
