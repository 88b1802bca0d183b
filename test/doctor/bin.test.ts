/**
 * `restaurant-partner doctor` as a partner runs it: a real child process against the standalone
 * fake (itself a child). At 1 request/second against a fake limiting to 1/second it causes no
 * 429, and the requests it prints are the ones the fake's journal holds; --json is one document;
 * --compare exits 1 naming each changed point; SIGINT during --probe-writes cancels the booking and
 * deletes the webhook before exiting 1; usage errors exit 2; nothing prints the token; the fake
 * started from the learned file (--dialect-file) or the transcript (--record-file) speaks it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import { dir } from './support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = ['--import', 'tsx', 'src/bin/restaurant-partner.ts'];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function startFake(args: string[]) {
  const child = spawn(process.execPath, [...bin, 'fake', '--port', '0', '--quiet', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    once(child, 'exit').then(() => [undefined]),
  ])) as [string | undefined];
  if (line === undefined) throw new Error(`the fake exited: ${stderr}`);
  const url = JSON.parse(line).url as string;
  const control = async (path: string) => (await fetch(`${url}/_fake/${path}`)).json();
  return { url, control };
}

const env = (url: string) => ({
  ...process.env,
  PARTNER_BASE_URL: url,
  PARTNER_ID: DEMO_PARTNER.partnerId,
  PARTNER_TOKEN: DEMO_PARTNER.apiToken,
});

function doctor(
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  onLine?: (line: string, child: ChildProcess) => void,
) {
  const child = spawn(process.execPath, [...bin, 'doctor', ...args], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    stdout += `${line}\n`;
    onLine?.(line, child);
  });
  return once(child, 'close').then(([code]) => {
    for (const text of [stdout, stderr]) {
      expect(text).not.toContain(DEMO_PARTNER.apiToken);
      expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
    return { code: code as number, stdout, stderr };
  });
}

describe('restaurant-partner doctor (child processes)', () => {
  it('read-only at 1/s against a fake limiting to 1/s: no 429, at most 20 requests, the count the journal holds', async () => {
    const { url, control } = await startFake(['--seed', 'demo', '--rate-limit', '1']);
    const where = dir();
    const out = join(where, 'partner-dialect.json');
    const run = await doctor(['--out', out, '--record', join(where, 'record.json')], env(url));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/pass {2}credentials: accepted/);
    expect(run.stdout).toMatch(/pass {2}clock: within 5 s/);
    expect(run.stdout).toMatch(/WARN {2}webhooks: none registered/);
    const spent = Number(/(\d+) requests spent \(1\/s\)/.exec(run.stdout)![1]);
    const journal = (await control('requests')) as { face: string; status: number; method: string }[];
    const partner = journal.filter((entry) => entry.face === 'partner');
    expect(partner).toHaveLength(spent);
    expect(spent).toBeLessThanOrEqual(20);
    expect(partner.every((entry) => entry.method === 'GET')).toBe(true);
    expect(
      partner.filter((entry) => entry.status === 429),
      JSON.stringify(journal, null, 1),
    ).toEqual([]);
    const file = readFileSync(out, 'utf8');
    expect(JSON.parse(file)).toMatchObject({
      version: 1,
      points: { profile: { value: 'object' }, list: { value: 'envelope' }, errorBody: { value: 'detail' } },
    });
    for (const written of [file, readFileSync(join(where, 'record.json'), 'utf8')])
      expect(written).not.toContain(DEMO_PARTNER.apiToken);
    // A fake started from the file answers in the learned dialect.
    const replay = await startFake(['--seed', 'demo', '--dialect-file', out]);
    expect(await replay.control('dialect')).toMatchObject({
      profile: 'object',
      list: 'envelope',
      errorBody: 'detail',
    });
  }, 60_000);

  it('--compare exits 1 and names each changed point; --json is one document', async () => {
    const { url } = await startFake([
      '--seed',
      'demo',
      '--rate-limit',
      'off',
      '--dialect',
      'profile=list',
      '--dialect',
      'errorBody=message',
    ]);
    const where = dir();
    const before = join(where, 'partner-dialect.json');
    const first = await doctor(
      ['--out', before, '--record', join(where, 'record.json'), '--rate-limit', '50'],
      env(url),
    );
    expect(first.code).toBe(0);
    const replay = await startFake([
      '--seed',
      'demo',
      '--rate-limit',
      'off',
      '--record-file',
      join(where, 'record.json'),
    ]);
    expect(await replay.control('dialect')).toMatchObject({ profile: 'list', errorBody: 'message' });
    const same = await doctor(['--compare', before, '--rate-limit', '50'], env(replay.url));
    expect(same.code, same.stdout).toBe(0);
    expect(same.stdout).toMatch(/pass {2}drift: no settled point changed/);
    const other = await startFake(['--seed', 'demo', '--rate-limit', 'off']);
    const drift = await doctor(['--compare', before, '--json', '--rate-limit', '50'], env(other.url));
    expect(drift.code).toBe(1);
    const document = JSON.parse(drift.stdout);
    expect(document).toMatchObject({ ok: false, exitCode: 1 });
    expect(document.drift.map((change: { point: string }) => change.point).sort()).toEqual([
      'errorBody',
      'profile',
    ]);
    expect(document.checks).toContainEqual(
      expect.objectContaining({
        check: 'drift',
        verdict: 'fail',
        message: expect.stringMatching(/^profile was list, now object/),
      }),
    );
    // --compare without --out leaves the compared file as it was.
    expect(JSON.parse(readFileSync(before, 'utf8')).points.profile.value).toBe('list');
  }, 60_000);

  it.each([
    ['the booking', /^created reservation \d+/],
    ['the temporary webhook', /^created webhook \d+/],
  ])(
    'SIGINT after %s was created (--probe-writes): everything cancelled or deleted, each reported, exit 1',
    async (_, trigger) => {
      const { url, control } = await startFake(['--seed', 'demo', '--rate-limit', 'off']);
      let interrupted = false;
      const run = await doctor(
        ['--probe-writes', '--out', join(dir(), 'd.json'), '--rate-limit', '4'],
        env(url),
        (line, child) => {
          if (!interrupted && trigger.test(line)) {
            interrupted = true;
            child.kill('SIGINT');
          }
        },
      );
      expect(interrupted).toBe(true);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toContain('interrupted; cleaning up');
      expect(run.stdout).toMatch(/FAIL {2}run: interrupted/);
      const created = [...run.stdout.matchAll(/^created reservation (\d+)/gm)].map((match) =>
        Number(match[1]),
      );
      expect(created.length).toBeGreaterThan(0);
      for (const id of created) expect(run.stdout).toMatch(new RegExp(`^cancelled reservation ${id}`, 'm'));
      for (const [, id] of run.stdout.matchAll(/^created webhook (\d+)/gm))
        expect(run.stdout).toMatch(new RegExp(`^deleted webhook ${id}$`, 'm'));
      const reservations = (await control('restaurants/1/reservations')) as {
        id: number;
        cancelled: boolean;
      }[];
      expect(reservations.length).toBeGreaterThan(0);
      expect(reservations.filter((reservation) => !reservation.cancelled)).toEqual([]);
      expect(((await control('state')) as { webhooks: unknown[] }).webhooks).toEqual([]);
    },
    60_000,
  );

  it('a full --probe-writes run books 7+ days ahead, cancels, creates and deletes its webhook, and exits 0', async () => {
    const { url, control } = await startFake(['--seed', 'demo', '--rate-limit', 'off']);
    const run = await doctor(
      ['--probe-writes', '--out', join(dir(), 'd.json'), '--rate-limit', '50'],
      env(url),
    );
    expect(run.code, run.stdout).toBe(0);
    const id = /^created reservation (\d+) at restaurant (\d+) \((\d{4}-\d\d-\d\d)/m.exec(run.stdout)!;
    expect(Date.parse(id[3]!) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 86_400_000);
    expect(run.stdout).toMatch(new RegExp(`^cancelled reservation ${id[1]}$`, 'm'));
    expect(run.stdout).toMatch(/^created webhook (\d+) \(temporary\)[\s\S]*^deleted webhook \1$/m);
    const reservations = (await control(`restaurants/${id[2]}/reservations`)) as { cancelled: boolean }[];
    expect(reservations.every((reservation) => reservation.cancelled)).toBe(true);
    expect(((await control('state')) as { webhooks: unknown[] }).webhooks).toEqual([]);
  }, 60_000);

  it('usage errors exit 2 with the usage, before any request', async () => {
    const missing = await doctor([], {
      ...process.env,
      PARTNER_BASE_URL: '',
      PARTNER_ID: '',
      PARTNER_TOKEN: '',
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/set PARTNER_BASE_URL, PARTNER_ID, PARTNER_TOKEN in the environment/);
    const unknown = await doctor(['--probe-everything'], env('http://127.0.0.1:9'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage: restaurant-partner doctor');
    const where = dir();
    writeFileSync(join(where, 'bad.json'), '{"version": 1, "points": {"list": {"value": "pages"}}}');
    const bad = await doctor(['--compare', join(where, 'bad.json')], env('http://127.0.0.1:9'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /not a dialect file \(file\.points\.list\.value: list must be one of envelope, array/,
    );
  }, 60_000);
});
