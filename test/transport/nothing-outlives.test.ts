/**
 * Nothing outlives its call: a call that settles (here by its time limit, while the body stalls or
 * trickles after the headers) aborts its request and cancels the body it was reading, so the
 * socket that carried it closes, nothing more is read, and a process whose calls have all settled
 * exits at once. Real servers: node:http for the stall, raw TCP for a chunked body that never ends.
 */
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, Socket, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, PartnerClient, silentLogger, TimeoutError } from 'restaurant-partner-sdk';

const CALLS = 20;
const TIMEOUT_MS = 300;
const root = fileURLToPath(new URL('../../', import.meta.url));

interface BodyServer {
  url: string;
  /** This process's client-side sockets still connected to the server. */
  openSockets(): number;
  /** Body bytes the server managed to hand to the network so far. */
  bytesSent(): number;
  /** The server's own sockets still writing (a trickling server's writes end once the client has closed). */
  serverSocketsAlive(): number;
  close(): Promise<void>;
}

/** Tracks the server's sockets, to count the bytes it hands to the network and to close them at the end. */
function trackSockets(server: Server): Set<Socket> {
  const all = new Set<Socket>();
  server.on('connection', (socket: Socket) => all.add(socket));
  return all;
}

/**
 * The client-side sockets of this process connected to `port`. Counted on the client's side: a
 * node:http server stops reading a socket while its response is unfinished, so it would not
 * notice the client closing it.
 */
function clientSocketsTo(port: number): number {
  // No public API lists a process's sockets with their ports; this one has been stable since Node 0.x.
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter(
    (handle) => handle instanceof Socket && handle.remotePort === port && !handle.destroyed,
  ).length;
}

async function listen(server: Server, sockets: Set<Socket>, stop: () => void): Promise<BodyServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    openSockets: () => clientSocketsTo(port),
    bytesSent: () => [...sockets].reduce((sum, socket) => sum + socket.bytesWritten, 0),
    serverSocketsAlive: () =>
      [...sockets].filter((socket) => !socket.destroyed && !socket.writableEnded).length,
    close: async () => {
      stop();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** node:http: answers 200 with its headers and the first bytes of a JSON body, then stalls for ever. */
function stallingServer(): Promise<BodyServer> {
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.flushHeaders();
    response.write('{"first_name":');
  });
  return listen(server, trackSockets(server), () => server.closeAllConnections());
}

/** Raw TCP: answers 200 with a chunked body of 16 KiB every 10 ms that never ends. */
function tricklingServer(): Promise<BodyServer> {
  const timers = new Set<ReturnType<typeof setInterval>>();
  const chunk = `4000\r\n${' '.repeat(0x4000)}\r\n`;
  const server = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\n',
      );
      const timer = setInterval(() => {
        if (socket.destroyed || socket.writableEnded) return clearInterval(timer);
        socket.write(chunk);
      }, 10);
      timers.add(timer);
      socket.on('close', () => clearInterval(timer));
    });
  });
  return listen(server, trackSockets(server), () => timers.forEach(clearInterval));
}

/** An answer the client reads whole: the socket stays as the HTTP stack's idle spare, which must not hold the process. */
function answeringServer(): Promise<BodyServer> {
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ uuid: '6f1c2a9e-9d1b-4c55-8f0e-2b7f3c0d4e11', name: 'Partner', description: null }),
    );
  });
  return listen(server, trackSockets(server), () => server.closeAllConnections());
}

/** Polls `condition` every 50 ms for up to `withinMs`; the last value. */
async function eventually(condition: () => boolean, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  return condition();
}

/**
 * The client closed every socket it used, so nothing more is read; and a server that writes for
 * ever sees it: its connections end (the client's FIN or reset), and its byte count stops.
 */
async function expectNothingLeft(target: BodyServer, writesForever: boolean): Promise<void> {
  expect(
    await eventually(() => target.openSockets() === 0, 3_000),
    `${target.openSockets()} client sockets still open`,
  ).toBe(true);
  if (!writesForever) return;
  expect(
    await eventually(() => target.serverSocketsAlive() === 0, 5_000),
    `${target.serverSocketsAlive()} connections still taking the body`,
  ).toBe(true);
  const sentAtClose = target.bytesSent();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(target.bytesSent()).toBe(sentAtClose);
}

let server: BodyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a call that settles leaves nothing behind', () => {
  it.each([
    ['stalls after the headers (node:http)', stallingServer, false],
    ['trickles for ever after the headers (raw TCP)', tricklingServer, true],
  ])(
    `%s: ${CALLS} calls time out, and every socket they used is closed and read no more`,
    async (_name, start, writesForever) => {
      server = await start();
      const client = new PartnerClient({
        baseUrl: server.url,
        partnerId: 'partner',
        apiToken: 'token-of-the-partner',
        rateLimit: false,
        maxRetries: 0,
        timeoutMs: TIMEOUT_MS,
        logger: silentLogger,
      });
      // A first call loads the HTTP stack (hundreds of milliseconds on a loaded machine), so that the
      // calls measured below reach their body within their time limit.
      await client.profile.retrieve({ timeoutMs: 1_000 }).catch(() => undefined);
      const outcomes = await Promise.allSettled(
        Array.from({ length: CALLS }, () => client.profile.retrieve()),
      );
      const reasons = outcomes.map((outcome) =>
        outcome.status === 'rejected' ? outcome.reason : outcome.value,
      );
      for (const reason of reasons) expect(reason).toBeInstanceOf(TimeoutError);
      // Most time out reading the body (`sent: 'yes'`); on a loaded machine some time out before their
      // headers (`'maybe'`). Either way their sockets must close: the abort test below waits for every
      // body to be flowing before it ends the calls.
      await expectNothingLeft(server, writesForever);
    },
  );

  it('calls your signal aborts while they read a trickling body close their sockets too', async () => {
    server = await tricklingServer();
    const client = new PartnerClient({
      baseUrl: server.url,
      partnerId: 'partner',
      apiToken: 'token-of-the-partner',
      rateLimit: false,
      maxRetries: 0,
      timeoutMs: 30_000,
      logger: silentLogger,
    });
    const controller = new AbortController();
    const calls = Promise.allSettled(
      Array.from({ length: CALLS }, () => client.profile.retrieve({ signal: controller.signal })),
    );
    // Aborted once every body is being read.
    await eventually(() => server!.openSockets() >= CALLS && server!.bytesSent() > CALLS * 0x4000, 10_000);
    controller.abort();
    const reasons = (await calls).map((outcome) => (outcome as PromiseRejectedResult).reason);
    for (const reason of reasons) expect(reason).toBeInstanceOf(AbortError);
    await expectNothingLeft(server, true);
  });

  it.each([
    ['stall', stallingServer, TIMEOUT_MS, 'TimeoutError'],
    ['trickle', tricklingServer, TIMEOUT_MS, 'TimeoutError'],
    // Answered in full: the sockets stay with the HTTP stack as idle spares, which must not hold the process either.
    ['answer', answeringServer, 10_000, 'ok'],
  ])(
    'a process whose calls all settled (%s) exits within 1 s',
    async (_name, start, timeoutMs, outcome) => {
      server = await start();
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'test/transport/support/settle-and-exit.ts',
          server.url,
          String(CALLS),
          String(timeoutMs),
        ],
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let output = '';
      child.stdout.on('data', (data: Buffer) => (output += data.toString()));
      await new Promise<void>((resolve, reject) => {
        const guard = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the child did not exit within 20 s; it printed: ${output}`));
        }, 20_000);
        child.on('exit', () => {
          clearTimeout(guard);
          resolve();
        });
      });
      const report = JSON.parse(output.trim()) as { settledAt: number; exitAt: number; names: string[] };
      expect(report.names).toEqual(Array.from({ length: CALLS }, () => outcome));
      expect(
        report.exitAt - report.settledAt,
        'milliseconds from the last call settling to the process exit',
      ).toBeLessThan(1_000);
    },
    30_000,
  );
});
