/**
 * Starts a throwaway redis-server on a free loopback port, without persistence, for the tests, the
 * bench and the shared-budget example. Where redis-server is missing, ensure-system-packages.mjs
 * installs it (root on Debian) or the start fails with one line saying what to install.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import { ensureSystemPackages, findProgram } from './ensure-system-packages.mjs';

/** A free loopback port: bind port 0, read it, let it go (redis-server has no `--port 0`). */
async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once the server answers PING on `port`. */
async function waitForPing(port, child, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const answered = await new Promise((resolve) => {
      const socket = new Socket();
      const done = (value) => (socket.destroy(), resolve(value));
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

/**
 * Starts redis-server on a free loopback port; `stop()` it when done. `stop({ crash: true })`
 * kills it (SIGKILL) and `start()` brings it back, empty, on the same port.
 * @returns {Promise<{ port: number, url: string, stop(options?: { crash?: boolean }): Promise<void>, start(): Promise<void> }>}
 */
export async function startRedisServer() {
  const problem = ensureSystemPackages(['redis-server']);
  if (problem) throw new Error(problem);
  const program = findProgram('redis-server');
  let child;
  let port = 0;
  const launch = async () => {
    child = spawn(
      program,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      {
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    await waitForPing(port, child);
  };
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      // Another process took the port between the probe and redis-server's bind: try another.
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
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, 'exit');
      running.kill(crash ? 'SIGKILL' : 'SIGTERM');
      await exited;
    },
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      await launch();
    },
  };
}
