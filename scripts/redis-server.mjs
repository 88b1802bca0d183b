/**
 * Starts a throwaway redis-server on a free loopback port, without persistence, for the tests, the
 * bench and the shared-budget example. Where redis-server is missing, ensure-system-packages.mjs
 * installs it (root on Debian) or the start fails with one line saying what to install.
 *
 * It also makes the faults a partner's Redis goes through, on the real server: a `CLIENT PAUSE`,
 * a `DEBUG SLEEP` (the server allows DEBUG from loopback), and an outage (stopped, then started
 * again, empty, on the same port).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import { ensureSystemPackages, findProgram } from './ensure-system-packages.mjs';

/** A free loopback port: bind port 0, read it, let it go (redis-server has no `--port 0`). */
export async function freePort() {
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

/** Reads one RESP reply from `data` (enough for the simple, error and integer replies used here). */
function parseReply(text) {
  const line = text.slice(0, text.indexOf('\r\n'));
  if (line.startsWith('-')) throw new Error(`redis-server answered: ${line.slice(1)}`);
  return line.slice(1);
}

/**
 * Sends one command to the server on a connection of its own (so the clients under test see the
 * fault, not this connection's traffic) and resolves with its reply once it comes: `DEBUG SLEEP`
 * answers when the server wakes.
 */
function sendCommand(port, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let received = '';
    const finish = (error, value) => {
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    socket.setTimeout(timeoutMs, () =>
      finish(new Error(`redis-server did not answer ${args[0]} within ${timeoutMs} ms`)),
    );
    socket.once('error', (error) => finish(error));
    socket.on('data', (data) => {
      received += data.toString();
      if (!received.includes('\r\n')) return;
      try {
        finish(undefined, parseReply(received));
      } catch (error) {
        finish(error);
      }
    });
    socket.connect(port, '127.0.0.1', () =>
      socket.write(
        `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(String(arg))}\r\n${arg}\r\n`).join('')}`,
      ),
    );
  });
}

/** The major version of the redis-server program (DEBUG needs `enable-debug-command` from 7 on). */
function majorVersion(program) {
  const { stdout } = spawnSync(program, ['--version'], { encoding: 'utf8' });
  return Number(/v=(\d+)/.exec(stdout ?? '')?.[1] ?? 0);
}

/**
 * Starts redis-server on a free loopback port; `stop()` it when done. `stop({ crash: true })`
 * kills it (SIGKILL) and `start()` brings it back, empty, on the same port.
 * Faults: `pause(ms)` (`CLIENT PAUSE ms ALL`: every client's commands wait, the server stays up),
 * `sleep(ms)` (`DEBUG SLEEP`: the whole server hangs; resolves when it wakes) and
 * `outage(ms)` (killed, then started again on the same port after `ms`; resolves once it answers).
 * `command(...args)` sends any other command on a connection of its own.
 * @returns {Promise<import('./redis-server.d.mts').ThrowawayRedis>}
 */
export async function startRedisServer() {
  const problem = ensureSystemPackages(['redis-server']);
  if (problem) throw new Error(problem);
  const program = findProgram('redis-server');
  // Redis 7 refuses DEBUG unless enabled; `local` allows it from loopback only (older servers allow it).
  const debugOption = majorVersion(program) >= 7 ? ['--enable-debug-command', 'local'] : [];
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
        ...debugOption,
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
  const command = (...args) => sendCommand(port, args, 10_000);
  const server = {
    port,
    url: `redis://127.0.0.1:${port}`,
    command,
    async pause(ms) {
      await command('CLIENT', 'PAUSE', String(Math.round(ms)), 'ALL');
    },
    async sleep(ms) {
      await sendCommand(port, ['DEBUG', 'SLEEP', String(ms / 1000)], ms + 10_000);
    },
    async outage(ms) {
      await server.stop({ crash: true });
      await new Promise((resolve) => setTimeout(resolve, ms));
      await server.start();
    },
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
  return server;
}
