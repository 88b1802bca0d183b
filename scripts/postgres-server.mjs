/**
 * Starts a throwaway PostgreSQL cluster on a free loopback port, in a temporary folder, for the
 * tests, the bench and the examples: trust authentication on 127.0.0.1, no durability (fsync
 * off: the cluster is thrown away). `stop()` ends the server and removes the folder. Where
 * Debian's `postgresql` is missing, ensure-system-packages.mjs installs it (root on Debian) or
 * the start fails with one line saying what to install.
 *
 * Debian's postgres refuses to run as root: as root, initdb and the server run as the `postgres`
 * user (the folder is handed to it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureSystemPackages, findProgram } from './ensure-system-packages.mjs';
import { freePort } from './redis-server.mjs';

/** The uid and gid to run the cluster as: `postgres` when this process is root, else this process's own. */
function clusterUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0)
    throw new Error(
      "Running as root needs a `postgres` user to run PostgreSQL as (Debian's postgresql package creates it).",
    );
  return { uid, gid };
}

/** Resolves once the server accepts connections on `port` (pg_isready), or throws when it exited. */
async function waitReady(bin, port, child, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}`);
    const ready = spawnSync(join(bin, 'pg_isready'), [
      '-q',
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      'postgres',
    ]);
    if (ready.status === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`postgres did not accept connections on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts a cluster; `stop()` it when done (a process that exits without stopping it kills it and
 * removes its folder on the way out).
 * @returns {Promise<import('./postgres-server.d.mts').ThrowawayPostgres>}
 */
export async function startPostgresServer() {
  const problem = ensureSystemPackages(['postgresql=postgres']);
  if (problem) throw new Error(problem);
  // The server's own folder (a `postgres` on the PATH may be a link to it), where initdb and pg_isready are too.
  const bin = dirname(realpathSync(findProgram('postgres')));
  const user = clusterUser();
  const folder = mkdtempSync(join(tmpdir(), 'restaurant-partner-pg-'));
  const data = join(folder, 'data');
  if (user.uid !== undefined) chownSync(folder, user.uid, user.gid);
  let child;
  const removeAll = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  };
  process.once('exit', removeAll);
  try {
    const init = spawnSync(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      { ...user, encoding: 'utf8' },
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${(init.stderr || init.stdout || '').trim()}`);
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      child = spawn(
        join(bin, 'postgres'),
        [
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          folder,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
          '-c',
          'max_connections=200',
        ],
        { ...user, stdio: ['ignore', 'ignore', process.env.PG_DEBUG ? 'inherit' : 'ignore'] },
      );
      try {
        await waitReady(bin, port, child);
        break;
      } catch (error) {
        // Another process took the port between the probe and the server's bind: try another.
        child.kill('SIGKILL');
        if (attempt >= 3) throw error;
      }
    }
    return {
      port,
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      async stop() {
        process.removeListener('exit', removeAll);
        const running = child;
        if (running && running.exitCode === null && running.signalCode === null) {
          const exited = once(running, 'exit');
          // SIGINT: PostgreSQL's fast shutdown (sessions ended, no wait for clients to leave).
          running.kill('SIGINT');
          await exited;
        }
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.removeListener('exit', removeAll);
    removeAll();
    throw error;
  }
}
