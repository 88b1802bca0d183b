/**
 * `restaurant-partner resend <delivery id>`: sends a delivery of the fake's log again, now, to
 * its webhook (same event id and body, the webhook's current token), once and outside delivery
 * chaos, and prints the receiver's answer.
 * @module
 */
import { FakeError } from '../testing/backend/fake-error.js';
import { connectFake } from '../testing/remote-fake.js';
import {
  CommandFailure,
  createOutput,
  createRedactor,
  fakeUrlOf,
  runCommand,
  UsageError,
  type CommandDefinition,
} from './cli-kit.js';
import { deliveryLine } from './delivery-lines.js';

const usage = `Usage: restaurant-partner resend <delivery id> [--url FAKE_URL] [--json]

Sends a delivery of the fake's log again now (a delivery id is its event id, evt_..., as
\`restaurant-partner tail\` and \`trigger\` print it): same event id and body, the webhook's
current token and URL, once, outside delivery chaos; a dropped delivery can be resent too.
The fake is at --url, else PARTNER_BASE_URL, else http://127.0.0.1:4010.
Exit codes: 0 the receiver answered 2xx, 1 it did not (or no such delivery), 2 usage.

Example:
  restaurant-partner resend evt_6885d267-55ce-44d3-b03f-2dd9f3cc3706`;

const definition: CommandDefinition = {
  name: 'resend',
  usage,
  positionals: 1,
  options: { url: { type: 'string' } },
};

/** Runs `restaurant-partner resend` with `args`. */
export async function run(args: string[]): Promise<void> {
  await runCommand(definition, args, async (values, [eventId]) => {
    if (eventId === undefined || eventId === '')
      throw new UsageError('give the delivery id (evt_...) to resend');
    const url = fakeUrlOf(values);
    const fake = await connectFake(url).catch((error: unknown) => {
      throw new CommandFailure(`cannot reach the fake at ${url}: ${(error as Error).message}`);
    });
    const redactor = createRedactor(fake.seed.partners.map((partner) => partner.apiToken));
    const entry = await fake.resend(eventId).catch((error: unknown) => {
      if (error instanceof FakeError && error.status === 404) throw new CommandFailure(error.message);
      throw error;
    });
    createOutput(values.json === true, redactor.redact)(entry, `resent ${deliveryLine(entry)}`);
    return entry.ok ? 0 : 1;
  });
}
