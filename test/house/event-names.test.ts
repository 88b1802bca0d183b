/**
 * The event names are written out once, in src/resources/event-names.ts: every list of them
 * elsewhere is derived from it, and this fails when one drifts (a name typed out again in src/, or
 * a derived list that no longer matches its source).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESERVATION_EVENT_TYPES, TEST_EVENT } from '../../src/resources/event-names.js';
import { WebhookEventType } from '../../src/resources/webhooks.schemas.js';
import { EVENT_TYPES } from '../../src/testing/backend/state.js';
import { createFakeService } from '../../src/testing/index.js';
import { createWebhookReceiver } from '../../src/webhooks/index.js';
import { parseWebhookEvent } from '../../src/webhooks/events.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = 'src/resources/event-names.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(folder, entry.name))
      : /\.(?:ts|mts|js|mjs)$/.test(entry.name)
        ? [join(folder, entry.name)]
        : [],
  );
}

/** The code of a file without its comments (doc examples may name events). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('the event names', () => {
  it('are typed out as literals in one source module only', () => {
    const names = [...RESERVATION_EVENT_TYPES];
    const pattern = new RegExp(`(['"\`])(?:${names.join('|')})\\1`);
    const offenders = sourceFiles('src')
      .filter((file) => relative(root, join(root, file)) !== SOURCE)
      .filter((file) => pattern.test(withoutComments(readFileSync(join(root, file), 'utf8'))));
    expect(offenders).toEqual([]);
    // The source itself has each name once.
    const source = withoutComments(readFileSync(join(root, SOURCE), 'utf8'));
    for (const name of names) expect(source.split(`'${name}'`).length - 1, name).toBe(1);
  });

  it('use the constant for the test delivery, never a literal', () => {
    const literal = new RegExp(`(['"\`])${TEST_EVENT}\\1`);
    const offenders = sourceFiles('src')
      .filter((file) => relative(root, join(root, file)) !== SOURCE)
      .filter((file) => literal.test(withoutComments(readFileSync(join(root, file), 'utf8'))));
    expect(offenders).toEqual([]);
  });

  it('are listed whole wherever a doc lists them', () => {
    const names = [...RESERVATION_EVENT_TYPES, TEST_EVENT];
    const name = `\`?(?:${names.join('|')})\`?`;
    // Two names or more joined as a list: "`A`, `B` and `C`".
    const list = new RegExp(`${name}(?:(?:,\\s*(?:and\\s+|or\\s+)?|\\s+(?:and|or)\\s+)${name})+`, 'g');
    const counted = /\b(one|two|three|four|five|six)\s+(?:reservation\s+)?event(?:s|\s+names|\s+types)\b/gi;
    const docs = [
      'README.md',
      'CONTRIBUTING.md',
      ...readdirSync(join(root, 'docs'))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
    ];
    const wrong: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8').replace(/\s+/g, ' ');
      for (const [found] of text.matchAll(list)) {
        const listed = new Set(found.match(new RegExp(names.join('|'), 'g')));
        listed.delete(TEST_EVENT);
        if (listed.size !== RESERVATION_EVENT_TYPES.length) wrong.push(`${doc}: ${found}`);
      }
      for (const [found] of text.matchAll(counted)) wrong.push(`${doc}: ${found}`);
    }
    expect(wrong).toEqual([]);
  });

  it('are the same list in the client schema, the fake and the receiver', async () => {
    expect(WebhookEventType.options).toEqual([...RESERVATION_EVENT_TYPES]);
    expect(EVENT_TYPES).toEqual(RESERVATION_EVENT_TYPES);
    // A webhook the fake creates subscribes to exactly these keys.
    const fake = createFakeService();
    const partner = fake.addPartner();
    const { PartnerClient } = await import('../../src/index.js');
    const client = new PartnerClient(fake.clientOptions(partner));
    const webhook = await client.webhooks.create({ url: 'https://example.com/hooks' });
    expect(Object.keys(webhook.subscribed_events ?? {}).sort()).toEqual([...RESERVATION_EVENT_TYPES].sort());
    // The receiver takes a handler for each, and reads each as its own typed event.
    const receiver = createWebhookReceiver({ tokens: ['a-token-of-at-least-32-characters-long'] });
    for (const name of [...RESERVATION_EVENT_TYPES, TEST_EVENT] as const) {
      expect(() => receiver.on(name, () => undefined)).not.toThrow();
      const event = parseWebhookEvent({ id: 'evt_1', event: name, reservation: { id: 1 } }, undefined);
      expect(event.type).toBe(name);
    }
    expect(() => receiver.on('RESERVATION_ARCHIVED' as never, () => undefined)).toThrow(TypeError);
  });
});
