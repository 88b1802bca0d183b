// Run as `node --import tsx import-probe.mjs <entry file>...`: installs counters on timers, file
// system, network and zod schema construction, imports each entry in turn, and prints what each
// import did as one JSON line. Then it uses a schema once, as a control that the counters see.
import { syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
import dgram from 'node:dgram';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import timers from 'node:timers';
import { pathToFileURL } from 'node:url';

const seen = { timers: [], io: [], schemas: 0 };
/**
 * Who called: the first frame outside this file, Node's own modules and the module loader (tsx),
 * or undefined when there is none (the loader reading a module's source is not the code's I/O).
 * A call made inside another counted call (readFileSync opening the file) is not counted again.
 */
const LOADER = /node:|node_modules\/tsx\/|import-probe\.mjs/;
const TSX_OR_PROBE = /node_modules\/tsx\/|import-probe\.mjs/;
function caller() {
  const frames = (new Error().stack ?? '').split('\n').slice(3);
  // Called straight from Node's own code (the CommonJS loader reading a required package's
  // source, say): the loader's work, not the code's.
  const direct = frames.find((line) => !TSX_OR_PROBE.test(line));
  if (direct === undefined || direct.includes('node:')) return undefined;
  return frames.find((line) => !LOADER.test(line));
}

function count(kind, name, target, key) {
  const original = target[key];
  if (typeof original !== 'function') return;
  target[key] = function (...args) {
    const where = caller();
    // Reads the module loader does on this thread have no frame of their own: not the code's I/O.
    if (where !== undefined) seen[kind].push(`${name} ${where.trim()}`);
    return original.apply(this, args);
  };
}

for (const key of ['setTimeout', 'setInterval', 'setImmediate']) {
  count('timers', key, globalThis, key);
  count('timers', `timers.${key}`, timers, key);
}
for (const key of Object.keys(fs))
  if (!/^[A-Z]/.test(key) && key !== 'promises') count('io', `fs.${key}`, fs, key);
for (const key of Object.keys(fs.promises)) count('io', `fs.promises.${key}`, fs.promises, key);
count('io', 'net.connect', net, 'connect');
count('io', 'net.createConnection', net, 'createConnection');
count('io', 'net.createServer', net, 'createServer');
count('io', 'net.Socket.connect', net.Socket.prototype, 'connect');
for (const module of [http, https])
  for (const key of ['request', 'get', 'createServer']) count('io', `http.${key}`, module, key);
count('io', 'dgram.createSocket', dgram, 'createSocket');
count('io', 'dns.lookup', dns, 'lookup');
count('io', 'fetch', globalThis, 'fetch');
syncBuiltinESMExports();

// zod installs `_zod` on every schema it builds (its $constructor): one count per schema or check.
const defineProperty = Object.defineProperty;
Object.defineProperty = function (target, key, descriptor) {
  if (key === '_zod') seen.schemas += 1;
  return defineProperty(target, key, descriptor);
};

const entries = {};
for (const file of process.argv.slice(2)) {
  const before = { timers: seen.timers.length, io: seen.io.length, schemas: seen.schemas };
  await import(pathToFileURL(file).href);
  entries[file] = {
    timers: seen.timers.slice(before.timers),
    io: seen.io.slice(before.io),
    schemas: seen.schemas - before.schemas,
  };
}
// The control: the first use of a schema builds it, and the counter sees it.
const { Reservation } = await import(pathToFileURL(process.argv[2]).href);
const before = seen.schemas;
Reservation.safeParse({ id: 1, start_time: '2026-12-05T19:30:00+01:00' });
process.stdout.write(`${JSON.stringify({ entries, schemasOnFirstUse: seen.schemas - before })}\n`);
