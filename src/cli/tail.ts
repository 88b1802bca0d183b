/**
 * `restaurant-partner tail`: the fake's journal of requests and its delivery attempts, live, as
 * lines or NDJSON, filtered, with every token the fake knows of (partners', webhooks') and the
 * environment's redacted.
 * @module
 */
import type { DeliveryLogEntry } from '../testing/backend/state.js';
import type { JournalEntry } from '../testing/backend/journal.js';
import { connectFake, type RemoteFake } from '../testing/remote-fake.js';
import {
  CommandFailure,
  createOutput,
  createRedactor,
  fakeUrlOf,
  list,
  pause,
  runCommand,
  stopSignal,
  text,
  UsageError,
  whole,
  type CommandDefinition,
  type OptionValues,
} from './cli-kit.js';
import { deliveryKey, deliveryLine } from './delivery-lines.js';

const usage = `Usage: restaurant-partner tail [--kind request|delivery] [--status 2xx|4xx|429|none ...]
                               [--operation NAME ...] [--event NAME ...] [--grep TEXT]
                               [--lines N] [--once] [--interval-ms MS] [--url FAKE_URL] [--json]

Prints the fake's journal of partner API and control requests and its webhook delivery attempts
(with the receiver's answer), the latest --lines first (default 20), then live until stopped.
--json prints NDJSON, one entry per line, each with "kind": "request" or "delivery".
API and webhook tokens are redacted. --once prints what is there and exits.
Filters combine: --status takes a code, a class (4xx) or none (no answer); --operation a partner
API operation (reservations.create); --event a delivery's event; --grep any text of the line.
The fake is at --url, else PARTNER_BASE_URL, else http://127.0.0.1:4010.
Exit codes: 0 stopped (Ctrl-C, or --once), 1 the fake went away, 2 usage.

Example:
  restaurant-partner tail --kind delivery --status 5xx --json`;

const definition: CommandDefinition = {
  name: 'tail',
  usage,
  options: {
    kind: { type: 'string' },
    status: { type: 'string', multiple: true },
    operation: { type: 'string', multiple: true },
    event: { type: 'string', multiple: true },
    grep: { type: 'string' },
    lines: { type: 'string' },
    once: { type: 'boolean', default: false },
    'interval-ms': { type: 'string' },
    url: { type: 'string' },
  },
};

type Item =
  | { kind: 'request'; at: string; line: string; record: JournalEntry & { kind: 'request' } }
  | { kind: 'delivery'; at: string; line: string; record: DeliveryLogEntry & { kind: 'delivery' } };

function statusMatches(filters: string[], status: number | null): boolean {
  if (filters.length === 0) return true;
  return filters.some((filter) =>
    filter === 'none'
      ? status === null
      : /^\dxx$/i.test(filter)
        ? status !== null && Math.floor(status / 100) === Number(filter[0])
        : status === Number(filter),
  );
}

/** The filter of the options, checked. */
function filterOf(values: OptionValues): (item: Item) => boolean {
  const kind = text(values, 'kind');
  if (kind !== undefined && kind !== 'request' && kind !== 'delivery')
    throw new UsageError(`--kind must be request or delivery (got "${kind}")`);
  const statuses = list(values, 'status');
  for (const status of statuses)
    if (!/^(\d{3}|\dxx|none)$/i.test(status))
      throw new UsageError(`--status takes a code (429), a class (5xx) or none (got "${status}")`);
  const operations = list(values, 'operation');
  const events = list(values, 'event');
  const grep = text(values, 'grep')?.toLowerCase();
  return (item) =>
    (kind === undefined || item.kind === kind) &&
    statusMatches(statuses, item.record.status) &&
    (operations.length === 0 ||
      (item.kind === 'request' && operations.includes(item.record.operation ?? ''))) &&
    (events.length === 0 || (item.kind === 'delivery' && events.includes(item.record.event))) &&
    (grep === undefined || item.line.toLowerCase().includes(grep));
}

/** The entries of the journal and the delivery log that were not printed yet, oldest first. */
function newItems(
  journal: JournalEntry[],
  deliveries: DeliveryLogEntry[],
  seen: { sequence: number; deliveries: Set<string> },
): Item[] {
  // A reset empties the journal and starts its numbers again.
  if ((journal.at(-1)?.sequence ?? 0) < seen.sequence) seen.sequence = 0;
  const items: Item[] = [];
  for (const entry of journal) {
    if (entry.sequence <= seen.sequence) continue;
    const what = `${entry.method} ${entry.path} -> ${entry.status ?? 'connection dropped'}`;
    items.push({
      kind: 'request',
      at: entry.at,
      line: `${entry.at} ${entry.face === 'control' ? 'control' : 'request'} ${what}${entry.operation ? ` (${entry.operation})` : ''}`,
      record: { kind: 'request', ...entry },
    });
  }
  seen.sequence = journal.at(-1)?.sequence ?? seen.sequence;
  const current = new Set<string>();
  for (const entry of deliveries) {
    const key = deliveryKey(entry);
    current.add(key);
    if (seen.deliveries.has(key)) continue;
    items.push({
      kind: 'delivery',
      at: entry.deliveredAt,
      line: `${entry.deliveredAt} ${deliveryLine(entry)}`,
      record: { kind: 'delivery', ...entry },
    });
  }
  // Only what the log still holds is remembered: the set stays as small as the log.
  seen.deliveries = current;
  return items.sort((a, b) => a.at.localeCompare(b.at));
}

/** Reads both logs, and the tokens to redact; a fake that stopped answering ends the command. */
async function read(fake: RemoteFake, url: string, redactor: ReturnType<typeof createRedactor>) {
  try {
    const [journal, deliveries, state] = await Promise.all([
      fake.requests(),
      fake.deliveries(),
      fake.state({ reservations: 0, deliveries: 0 }),
    ]);
    // Webhook tokens are never shown by the fake; what looks like one is redacted by its form.
    redactor.add(state.partners.map((partner) => partner.apiToken));
    return { journal, deliveries };
  } catch (error) {
    throw new CommandFailure(`the fake at ${url} went away: ${(error as Error).message}`);
  }
}

/** Runs `restaurant-partner tail` with `args`. */
export async function run(args: string[]): Promise<void> {
  await runCommand(definition, args, async (values) => {
    const keep = filterOf(values);
    const lines = whole(values, 'lines', 20, 0, 100_000);
    const intervalMs = whole(values, 'interval-ms', 250, 10, 60_000);
    const url = fakeUrlOf(values);
    const fake = await connectFake(url).catch((error: unknown) => {
      throw new CommandFailure(`cannot reach the fake at ${url}: ${(error as Error).message}`);
    });
    const redactor = createRedactor(fake.seed.partners.map((partner) => partner.apiToken));
    const print = createOutput(values.json === true, redactor.redact);
    const seen = { sequence: 0, deliveries: new Set<string>() };
    const first = await read(fake, url, redactor);
    for (const item of newItems(first.journal, first.deliveries, seen)
      .filter(keep)
      .slice(-lines || Infinity))
      if (lines > 0) print(item.record, item.line);
    if (values.once) return 0;
    const stop = stopSignal();
    try {
      while (!stop.signal.aborted) {
        await pause(intervalMs, stop.signal);
        if (stop.signal.aborted) break;
        const next = await read(fake, url, redactor);
        for (const item of newItems(next.journal, next.deliveries, seen))
          if (keep(item)) print(item.record, item.line);
      }
    } finally {
      stop.release();
    }
    return 0;
  });
}
