/**
 * What a partner's bundle carries, from the sources (esbuild, minified, one file with every
 * dynamic import inlined, as a Worker uploads it): a webhook-only app carries none of the client
 * (no ky, no request schemas) and no zod (the receiver checks the envelope by hand), and an app that books and lists carries no luxon (the client
 * converts times with Intl). The sizes themselves are measured by bench/bundle-size.mjs.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function bundle(contents: string): Promise<{ text: string; packages: Set<string> }> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    splitting: false,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // What reached the output (the metafile's inputs also list files whose code was all dropped).
  const inputs = Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => input),
  );
  return {
    text: result.outputFiles[0]!.text,
    packages: new Set(inputs.map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'sdk')),
  };
}

describe("a partner's bundle", () => {
  it('of a webhook-only app carries none of the client: no ky, no luxon, no zod, no request schemas', async () => {
    const { text, packages } = await bundle(`
      import { createWebhookReceiver } from './src/webhooks/index.ts';
      const receiver = createWebhookReceiver({ tokens: ['a-token-of-at-least-32-characters-long'] })
        .on('RESERVATION_CONFIRMED', (event) => console.log(event.reservation.id));
      export default { fetch: (request: Request) => receiver.handle(request) };
    `);
    expect([...packages].sort()).toEqual(['sdk']);
    // Messages of the client's input schemas (booking, webhook registration, ids).
    for (const message of [
      'expected a valid luxon DateTime',
      'expected an http or https URL',
      'expected HH:MM or HH:MM:SS',
      'expected a positive integer id',
    ])
      expect(text, message).not.toContain(message);
  });

  it('of an app that books and lists carries no luxon', async () => {
    const { packages } = await bundle(`
      import { PartnerClient } from './src/index.ts';
      const client = new PartnerClient({ baseUrl: 'https://api.example.com', partnerId: 'p', apiToken: 't' });
      export const book = (input: never) => client.reservations.create(1, input, { idempotencyKey: 'k' });
      export const list = () => client.reservations.list(1).toArray();
    `);
    expect(packages.has('luxon')).toBe(false);
    expect(packages.has('zod')).toBe(true);
  });
});
