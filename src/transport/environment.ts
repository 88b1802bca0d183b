/**
 * Reads an environment variable wherever the runtime has one. The core entry runs on Node, Bun,
 * Deno and Workers: Node and Bun have `process.env`; Deno has `Deno.env`, which asks the user (or
 * throws) without `--allow-env`; Workers have neither (unless a compatibility flag adds
 * `process`). This is the one place that looks, so no other module touches a runtime global.
 * @module
 */
import { InputValidationError } from '../errors.js';

interface EnvironmentHost {
  process?: { env?: Record<string, string | undefined> };
  Deno?: {
    env?: { get?(name: string): string | undefined };
    permissions?: { querySync?(descriptor: { name: 'env'; variable: string }): { state: string } };
  };
}

function readRaw(host: EnvironmentHost, name: string): string | undefined {
  const deno = host.Deno;
  if (deno) {
    // Read only when already allowed: a library must not make Deno prompt for permission. Deno 2
    // also has `process`, whose env asks the same way, so it is not consulted there.
    const allowed = deno.permissions?.querySync?.({ name: 'env', variable: name }).state === 'granted';
    return allowed ? deno.env?.get?.(name) : undefined;
  }
  return host.process?.env?.[name];
}

/** The trimmed value of `name`, or undefined when it is unset, empty or cannot be read. */
export function readEnvironment(name: string): string | undefined {
  let value: string | undefined;
  try {
    value = readRaw(globalThis, name);
  } catch {
    // A sandbox whose env getter throws: as if unset.
    return undefined;
  }
  const trimmed = typeof value === 'string' ? value.trim() : undefined;
  return trimmed === '' ? undefined : trimmed;
}

/**
 * A client setting with a fixed set of values, chosen by the option when given (refused naming
 * `field` when unknown: a typo in code fails at once), else by the environment variable `variable`
 * (case-insensitive; an unknown value is reported through `warn` and ignored: a typo in a
 * deployment's environment must not stop the service), else `fallback`.
 */
export function chooseSetting<Value extends string>(setting: {
  option: unknown;
  field: string;
  allowed: readonly Value[];
  variable: string;
  fallback: Value;
  warn(message: string): void;
}): Value {
  const { option, field, allowed, variable, fallback } = setting;
  const isAllowed = (value: unknown): value is Value => allowed.includes(value as Value);
  const expected = `expected one of ${allowed.map((value) => `'${value}'`).join(', ')}`;
  if (option !== undefined) {
    if (isAllowed(option)) return option;
    throw new InputValidationError([{ field, path: [field], code: 'invalid_option', message: expected }]);
  }
  const fromEnvironment = readEnvironment(variable);
  if (fromEnvironment === undefined) return fallback;
  const lowered = fromEnvironment.toLowerCase();
  if (isAllowed(lowered)) return lowered;
  setting.warn(
    `${variable}=${JSON.stringify(fromEnvironment.slice(0, 20))} is not a known value (${expected}); using '${fallback}'`,
  );
  return fallback;
}
