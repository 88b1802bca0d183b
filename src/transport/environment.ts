/**
 * Reads an environment variable wherever the runtime has one. The core entry runs on Node, Bun,
 * Deno and Workers: Node and Bun have `process.env`; Deno has `Deno.env` and throws without
 * `--allow-env`; Workers have neither (unless a compatibility flag adds `process`). This is the one
 * place that looks, so no other module touches a runtime global.
 * @module
 */

interface EnvironmentHost {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get?(name: string): string | undefined } };
}

/** The trimmed value of `name`, or undefined when it is unset, empty or cannot be read. */
export function readEnvironment(name: string): string | undefined {
  const host = globalThis as EnvironmentHost;
  let value: string | undefined;
  try {
    value = host.process?.env?.[name] ?? host.Deno?.env?.get?.(name);
  } catch {
    // Deno without --allow-env, or a sandbox whose env getter throws: as if unset.
    return undefined;
  }
  const trimmed = typeof value === 'string' ? value.trim() : undefined;
  return trimmed === '' ? undefined : trimmed;
}
