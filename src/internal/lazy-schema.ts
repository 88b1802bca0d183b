/**
 * Schemas built on first use. Building every schema at import took about 10 ms of the core
 * entry's import cost (zod's first constructions are slow), and import cost matters to partners
 * on serverless cold starts. A lazy schema is a stand-in that builds the real one the first time
 * anything touches it and then forwards everything to it, so partners use it exactly like the
 * zod schema it stands for (`.parse`, `z.extend(schema, ...)`, `instanceof`, `z.infer`). Its parse
 * methods give zod's English messages, as the SDK's own checks do (see schema-messages.ts).
 * @module
 */
import { withMessages } from './schema-messages.js';

const REAL_SCHEMA = Symbol('restaurant-partner-sdk.realSchema');
const PARSE_METHODS = new Set<PropertyKey>(['parse', 'safeParse', 'parseAsync', 'safeParseAsync']);

/** Wraps a schema builder so the schema is built on first use. */
export function lazySchema<Schema extends object>(build: () => Schema): Schema {
  let built: Schema | undefined;
  const schema = (): Schema => (built ??= build());
  const boundMethods = new Map<PropertyKey, unknown>();
  return new Proxy({} as Schema, {
    get(_target, key) {
      const real = schema();
      if (key === REAL_SCHEMA) return real;
      const value: unknown = Reflect.get(real, key, real);
      if (typeof value !== 'function') return value;
      // Methods run on the real schema, so anything they build refers to it, not to this stand-in.
      let bound = boundMethods.get(key);
      if (bound === undefined) {
        const method = value as (input: unknown, params?: object) => unknown;
        bound = PARSE_METHODS.has(key)
          ? (input: unknown, params?: object) => method.call(real, input, withMessages(params))
          : value.bind(real);
        boundMethods.set(key, bound);
      }
      return bound;
    },
    has: (_target, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor(_target, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // A proxy may not report a property as non-configurable unless its target has it.
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
  });
}

/**
 * The real schema behind a lazy one (or the schema itself). Composing schemas and parsing on a hot
 * path use it, so every access inside zod does not go through the stand-in's traps.
 */
export function realSchema<Schema extends object>(schema: Schema): Schema {
  return ((schema as Record<symbol, unknown>)[REAL_SCHEMA] as Schema | undefined) ?? schema;
}
