import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import { DIALECT_VALUES } from '../../src/testing/backend/dialects.js';
import { basicAuthorization } from '../support/basic-auth.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = ['--import', 'tsx', 'src/bin/restaurant-partner-fake.ts'];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts the bin from source and resolves with its JSON start line. */
async function startBin(args: string[]) {
  const child = spawn(process.execPath, [...bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => [undefined])])) as [
    string | undefined,
  ];
  if (line === undefined) throw new Error(`the fake exited before listening: ${stderr}`);
  return { child, start: JSON.parse(line), stderr: () => stderr };
}

describe('restaurant-partner-fake bin', () => {
  it('prints one JSON start line with the seeded credentials, serves them, and stops cleanly on SIGINT', async () => {
    const { child, start, stderr } = await startBin([
      '--port',
      '0',
      '--seed',
      'demo',
      '--rate-limit',
      '2',
      '--dialect',
      'list=array',
    ]);
    expect(start).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      partners: [DEMO_PARTNER],
      restaurants: expect.arrayContaining([
        expect.objectContaining({
          id: 1,
          timezone: 'Europe/Brussels',
          confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
          partnerIds: [DEMO_PARTNER.partnerId],
        }),
      ]),
    });
    expect(start.restaurants.map((restaurant: { timezone: string }) => restaurant.timezone)).toEqual([
      'Europe/Brussels',
      'Europe/Paris',
      'America/New_York',
      'Europe/Amsterdam',
    ]);
    const headers = {
      authorization: basicAuthorization(start.partners[0].partnerId, start.partners[0].apiToken),
    };
    const reservations = await fetch(`${start.url}/api/v1/partnership/restaurants/1/reservations/`, {
      headers,
    });
    expect(await reservations.json()).toEqual([]); // list=array
    expect(
      (await fetch(`${start.url}/api/v1/partnership/restaurants/4/reservations/`, { headers })).status,
    ).toBe(404);
    const third = await fetch(`${start.url}/api/v1/partnership/restaurants/`, { headers });
    expect(third.status).toBe(429); // --rate-limit 2, real time
    expect(stderr()).toContain('listening on');
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it("listens on 127.0.0.1:4010 without --port, the address the README's curl line uses", async () => {
    const { child, start } = await startBin(['--seed', 'demo']);
    expect(start.url).toBe('http://127.0.0.1:4010');
    const restaurants = await fetch(`${start.url}/api/v1/partnership/restaurants/`, {
      headers: { authorization: basicAuthorization(DEMO_PARTNER.partnerId, DEMO_PARTNER.apiToken) },
    });
    expect(
      (await restaurants.json()).map((restaurant: { display_name: string }) => restaurant.display_name),
    ).toContain('Le Petit Sablon');
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);
  });

  it('refuses bad options with exit status 2 and says why', () => {
    for (const [args, message] of [
      [['--dialect', 'list=csv'], 'dialect list must be one of envelope, array'],
      [['--seed', 'lots'], '--seed must be demo or none'],
      [['--rate-limit', 'fast'], '--rate-limit must be a positive number or off'],
      [['--port', '99999'], '--port must be'],
      [['--colour'], "Unknown option '--colour'"],
      [['--max-sandboxes', 'many'], '--max-sandboxes must be'],
      [['--sandbox-idle-minutes', '0'], '--sandbox-idle-minutes must be'],
    ] as const) {
      const result = spawnSync(process.execPath, [...bin, ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
  });

  it('--help names every option the parser accepts and every dialect key with its values', () => {
    const result = spawnSync(process.execPath, [...bin, '--help'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(result.status).toBe(0);
    const source = readFileSync(`${root}src/cli/fake.ts`, 'utf8');
    const options = [...source.matchAll(/^\s+'?([a-z-]+)'?: \{ type: '(?:string|boolean)'/gm)].map(
      (match) => match[1]!,
    );
    expect(options).toEqual(expect.arrayContaining(['port', 'allow-remote-control', 'max-sandboxes']));
    for (const option of options) expect(result.stdout, option).toContain(`--${option}`);
    for (const [key, values] of Object.entries(DIALECT_VALUES))
      expect(result.stdout).toContain(`${key}=${values.join('|')}`);
  });

  it('starts empty with --seed none', async () => {
    const { child, start } = await startBin(['--seed', 'none', '--quiet']);
    expect(start.partners).toEqual([]);
    expect(start.restaurants).toEqual([]);
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);
  });

  it('is usable from curl alone (test/testing/curl-smoke.sh)', () => {
    const result = spawnSync('bash', ['test/testing/curl-smoke.sh'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, FAKE_CMD: `${process.execPath} ${bin.join(' ')}` },
    });
    expect(result.stdout + result.stderr).toContain('curl smoke: ok');
    expect(result.status).toBe(0);
  });
});
