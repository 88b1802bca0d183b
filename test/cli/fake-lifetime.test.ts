/**
 * `restaurant-partner fake` ends with whoever started it: a pid file names the server (written
 * once it listens, removed when it stops), and it stops when its parent dies, SIGKILL included,
 * even through a wrapper left behind (npx runs the bin under npm and a shell).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, root, startFake, stopAll } from './support.js';

const spawned: ChildProcess[] = [];
const pids: number[] = [];
afterAll(() => {
  stopAll();
  for (const child of spawned) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = performance.now() + withinMs;
  while (performance.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !alive(pid);
}

/**
 * Starts `command` (node or a shell running the fake) from a parent Node process that prints
 * the fake's start line and waits; resolves with the parent and the fake's pid and URL.
 */
async function underParent(viaShell: boolean, pidFile: string) {
  const fakeArgs = [...BIN, 'fake', '--port', '0', '--quiet', '--pid-file', pidFile];
  const script = viaShell
    ? `const { spawn } = require('node:child_process');
       // "; exit" keeps the shell between them, as npm's is (a shell may exec a lone command).
       const child = spawn('sh', ['-c', ${JSON.stringify(`"${process.execPath}" ${fakeArgs.join(' ')}; exit $?`)}], { stdio: ['ignore', 'inherit', 'inherit'] });
       setInterval(() => {}, 1000);`
    : `const { spawn } = require('node:child_process');
       const child = spawn(process.execPath, ${JSON.stringify(fakeArgs)}, { stdio: ['ignore', 'inherit', 'inherit'] });
       setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', script], {
    cwd: root,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  spawned.push(parent);
  const [line] = (await once(createInterface({ input: parent.stdout }), 'line')) as [string];
  const { url } = JSON.parse(line) as { url: string };
  const pid = Number(readFileSync(pidFile, 'utf8'));
  pids.push(pid);
  return { parent, pid, url };
}

describe('restaurant-partner fake: its lifetime', { timeout: 60_000 }, () => {
  it('writes --pid-file once listening, naming the server itself, and removes it when stopped by SIGTERM', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'fake-pid-')), 'fake.pid');
    const fake = await startFake(['--pid-file', pidFile]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBe(fake.child.pid);
    expect((await fetch(`${fake.url}/_fake/clock`)).status).toBe(200);
    process.kill(pid, 'SIGTERM');
    expect(await fake.exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('stops when its parent is killed with SIGKILL, and the port is free again', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'fake-pid-')), 'fake.pid');
    const { parent, pid, url } = await underParent(false, pidFile);
    parent.kill('SIGKILL');
    expect(await gone(pid, 10_000)).toBe(true);
    await expect(fetch(`${url}/_fake/clock`)).rejects.toThrow();
    expect(existsSync(pidFile)).toBe(false);
  });

  it("stops when the wrapper's parent is killed with SIGKILL and the shell between them stays (npx's case)", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'fake-pid-')), 'fake.pid');
    const { parent, pid } = await underParent(true, pidFile);
    parent.kill('SIGKILL');
    expect(await gone(pid, 10_000)).toBe(true);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('stops on SIGINT', async () => {
    const fake = await startFake();
    fake.child.kill('SIGINT');
    expect(await fake.exited).toBe(0);
  });
});
