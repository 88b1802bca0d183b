import { describe, expect, it } from 'vitest';
import {
  buildDeliveryRequest,
  createWebhookReceiver,
  type DeliveryContent,
  type DuplicateStore,
} from 'restaurant-partner-sdk/webhooks';
import { secretForms, secretFormsIn } from '../support/secret-forms.js';
import { captureLogger, TOKEN } from './helpers.js';

const URL_ = 'http://partner.test/webhooks';
// A token with the characters JSON and URL encoders escape differently.
const ODD_TOKEN = 'whk_Quote"Back\\slash/Plus+7f3a';

/** An error message quoting `token` in every form a handler's upstream might echo it. */
const echoing = (token: string): string =>
  `upstream refused ${secretForms(token).join(' , ')} (as JSON ${JSON.stringify({ token })}, ` +
  `inside JSON ${JSON.stringify(JSON.stringify({ token }))})`;

describe("a webhook token in any letter case or encoding never reaches the receiver's log", () => {
  for (const [name, token] of [
    ['a lower-case token echoed upper-cased and percent-encoded', TOKEN],
    ['a token with `"`, `\\`, `/` and `+`, echoed URL-encoded and JSON-escaped', ODD_TOKEN],
  ] as const) {
    it(`${name}: a handler's error is logged redacted`, async () => {
      const logger = captureLogger();
      const receiver = createWebhookReceiver({ tokens: [token], logger }).on('TEST', () => {
        throw new Error(echoing(token));
      });
      const content: DeliveryContent = { event: 'TEST', id: 'evt_echo' };
      const response = await receiver.handle(buildDeliveryRequest(URL_, content, token));
      expect(response.status).toBe(500);
      expect(logger.text()).toContain('upstream refused [redacted]');
      expect(secretFormsIn(logger.text(), token)).toEqual([]);
    });
  }

  it("a duplicate store's failure quoting the token (not even an Error) is logged redacted", async () => {
    const logger = captureLogger();
    const store: DuplicateStore = {
      has: () => false,
      add: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a store may throw anything
        throw `redis: AUTH ${ODD_TOKEN.toUpperCase()} ${encodeURIComponent(ODD_TOKEN).toLowerCase()}`;
      },
    };
    const receiver = createWebhookReceiver({ tokens: [ODD_TOKEN], logger, duplicateStore: store }).on(
      'TEST',
      () => {},
    );
    const response = await receiver.handle(
      buildDeliveryRequest(URL_, { event: 'TEST', id: 'evt_store' }, ODD_TOKEN),
    );
    expect(response.status).toBe(200);
    expect(logger.text()).toContain('redis: AUTH [redacted] [redacted]');
    expect(secretFormsIn(logger.text(), ODD_TOKEN)).toEqual([]);
  });
});
