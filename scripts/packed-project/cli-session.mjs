// Each command of the packed bin, run as a partner runs it (node_modules/.bin/restaurant-partner),
// against the standalone fake it starts: fake --pid-file, trigger, resend, tail, listen, certify.
// Copied into the scratch project by scripts/check-packed.mjs; exits non-zero on the first miss.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PartnerClient } from 'restaurant-partner-sdk';
import { connectFake } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

const bin = join(process.cwd(), 'node_modules/.bin/restaurant-partner');
const TOKEN = 'whk_packed_check_token';
const check = (ok, what) => {
  if (!ok) throw new Error(`packed bin: ${what}`);
  console.log(`packed bin: ${what}`);
};
/** Runs a command to its end (never blocking: the receiver in this process must answer meanwhile). */
const command = (args, env = {}) =>
  new Promise((resolve) => {
    execFile(bin, args, { env: { ...process.env, ...env }, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, lines: String(stdout).trim().split('\n'), stderr }),
    );
  });
const firstLine = (child) => once(createInterface({ input: child.stdout }), 'line').then(([line]) => line);

const pidFile = join(mkdtempSync(join(tmpdir(), 'packed-fake-')), 'fake.pid');
const fakeProcess = spawn(
  bin,
  ['fake', '--port', '0', '--seed', 'demo', '--quiet', '--rate-limit', 'off', '--pid-file', pidFile],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const receiverEvents = [];
const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: { warn() {}, error() {} } }).on(
  'RESERVATION_CONFIRMED',
  (event) => receiverEvents.push(event.id),
);
const receiverServer = createServer(receiver.nodeHandler()).listen(0, '127.0.0.1');
let listen;
try {
  const { url } = JSON.parse(await firstLine(fakeProcess));
  const fakePid = Number(readFileSync(pidFile, 'utf8'));
  check(fakePid > 0, `fake --pid-file names the server (${url})`);
  if (!receiverServer.listening) await once(receiverServer, 'listening');
  const receiverUrl = `http://127.0.0.1:${receiverServer.address().port}/webhooks`;
  const env = { PARTNER_BASE_URL: url, PARTNER_WEBHOOK_TOKEN: TOKEN };

  listen = spawn(bin, ['listen', '--forward-to', receiverUrl, '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: listen.stdout });
  const listenLines = [];
  lines.on('line', (line) => listenLines.push(JSON.parse(line)));
  while (!listenLines.some((line) => line.ready)) await new Promise((resolve) => setTimeout(resolve, 50));
  check(true, 'listen registered its webhook');

  const fake = await connectFake(url);
  const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, logLevel: 'off' });
  const day = new Date((await fake.clock.now()).getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
  const booking = await client.reservations.create(2, { start_time: `${day}T19:00:00`, adults: 2 });
  const trigger = await command(
    ['trigger', 'restaurant.confirm', '--reservation', String(booking.id), '--json'],
    env,
  );
  const step = JSON.parse(trigger.lines[0]);
  check(
    trigger.code === 0 && step.reservation.confirmed === true && step.deliveries[0]?.status === 200,
    'trigger restaurant.confirm, delivered through listen',
  );
  while (!listenLines.some((line) => line.id === step.deliveries[0].eventId))
    await new Promise((resolve) => setTimeout(resolve, 50));
  check(
    receiverEvents.includes(step.deliveries[0].eventId),
    'listen forwarded the delivery to the receiver, which accepted it',
  );
  const resend = await command(['resend', step.deliveries[0].eventId], env);
  check(resend.code === 0 && /: 200$/.test(resend.lines[0]), 'resend sent it again, answered 200');
  const tail = await command(['tail', '--once', '--json', '--kind', 'delivery'], env);
  check(
    tail.code === 0 && tail.lines.length >= 2 && !tail.lines.join('\n').includes(TOKEN),
    'tail --once lists the deliveries, tokens redacted',
  );
  const certify = await command(['certify', '--webhook-url', receiverUrl, '--json'], env);
  const summary = JSON.parse(certify.lines.at(-1));
  check(
    certify.code === 0 && summary.failed === 0 && summary.passed >= 9,
    `certify passes the SDK receiver (${summary.passed} checks)`,
  );
  check((await command(['trigger', 'nonsense'], env)).code === 2, 'a usage mistake exits 2');

  process.kill(fakePid, 'SIGTERM');
  await once(fakeProcess, 'exit');
  check(!existsSync(pidFile), 'the fake stopped by its pid removed its pid file');
  const [code] = await once(listen, 'exit');
  check(code === 1, 'listen exited 1 when its fake went away');
} finally {
  if (fakeProcess.exitCode === null) fakeProcess.kill('SIGKILL');
  if (listen && listen.exitCode === null) listen.kill('SIGKILL');
  receiverServer.close();
}
