// Run as `node --import tsx import-probe.mjs`: imports the /testing entry from source with msw made
// unresolvable (as when it is not installed), records every module specifier resolved, uses
// clientOptions() with a real PartnerClient, then prints one JSON line.
import { registerHooks } from 'node:module';

const resolved = [];
registerHooks({
  resolve(specifier, context, next) {
    resolved.push(specifier);
    if (specifier === 'msw' || specifier.startsWith('msw/'))
      throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    return next(specifier, context);
  },
});

const root = new URL('../../../', import.meta.url);
const before = resolved.length;
const testing = await import(new URL('src/testing/index.ts', root).href);
const atImport = resolved.slice(before);
const { PartnerClient } = await import(new URL('src/index.ts', root).href);
const fake = testing.createFakeService({ seed: 'demo' });
const partner = fake.describeSeed().partners[0];
const client = new PartnerClient(fake.clientOptions(partner));
const restaurants = await client.restaurants.list().toArray();
let handlersError = null;
try {
  void fake.handlers;
} catch (error) {
  handlersError = error.message;
}
fake.dispose();
console.log(JSON.stringify({ atImport, restaurants: restaurants.length, handlersError }));
