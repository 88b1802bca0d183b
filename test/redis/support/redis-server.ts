/**
 * A real redis-server for the tests, on a free loopback port, without persistence. Where
 * redis-server is missing, scripts/ensure-system-packages.mjs installs it (root on Debian) or the
 * start fails with one line saying what to install: the tests never skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const ensureScript = fileURLToPath(new URL('../../../scripts/ensure-system-packages.mjs', import.meta.url));
let ensured = false;

function ensureRedisServer(): void {
  if (ensured) return;
  const result = spawnSync(process.execPath, [ensureScript, 'redis-server'], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (result.status !== 0) throw new Error(result.stderr.trim().split('\n').at(-1) || 'redis-server is missing');
  ensured = true;
}

/** A free loopback port: bind port 0, read it, let it go (redis-server has no `--port 0`). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once the server answers PING on `port`. */
async function waitForPing(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const answered = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      const done = (value: boolean) => (socket.destroy(), resolve(value));
      socket.setTimeout(500, () => done(false));
      socket.once('error', () => done(false));
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    });
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  throw new Error(`redis-server did not answer on port ${port} within ${timeoutMs} ms`);
}

export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL when `crash`), keeping the port for `start`. */
  stop(options?: { crash?: boolean }): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
}

/** Starts redis-server on a free loopback port. Call `stop()` in afterAll. */
export async function startRedisServer(): Promise<TestRedis> {
  ensureRedisServer();
  let child: ChildProcess | undefined;
  let port = 0;
  const launch = async () => {
    const process_ = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = process_;
    await waitForPing(port, process_);
  };
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      // Another process took the port between our probe and redis-server's bind: try another.
      child?.kill('SIGKILL');
      if (attempt >= 3) throw error;
    }
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop({ crash = false } = {}) {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = once(running, 'exit');
      running.kill(crash ? 'SIGKILL' : 'SIGTERM');
      await exited;
    },
    async start() {
      if (child && child.exitCode === null) return;
      await launch();
    },
  };
}
