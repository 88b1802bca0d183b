/**
 * Reads an environment variable wherever the runtime has one. The core entry runs on Node, Bun,
 * Deno and Workers: Node and Bun have `process.env`; Deno has `Deno.env`, which asks the user (or
 * throws) without `--allow-env`; Workers have neither (unless a compatibility flag adds
 * `process`). This is the one place that looks, so no other module touches a runtime global.
 * @module
 */

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
    value = readRaw(globalThis as EnvironmentHost, name);
  } catch {
    // A sandbox whose env getter throws: as if unset.
    return undefined;
  }
  const trimmed = typeof value === 'string' ? value.trim() : undefined;
  return trimmed === '' ? undefined : trimmed;
}
