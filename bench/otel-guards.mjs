/**
 * `otel_overhead_ns_unsubscribed`, measured on the only code that differs when no one subscribes.
 *
 * With no subscriber, a call runs the same functions as on a runtime without `diagnostics_channel`:
 * `Transport.run`, `waitObserved` and `sendObserved` each ask `isTraced(channel)` and, told no,
 * run the call's body as is (no message built, no wrapper, nothing published). The one difference
 * is `isTraced` itself: with the channels it reads a tracing channel's `hasSubscribers`; without,
 * it finds no channels. A call of one request asks three times (call, wait, attempt; a call of k
 * requests 1 + 2k). An end-to-end comparison of whole calls carries each call's own noise (tens of
 * us of CPU on a loaded machine) against a goal of 1 us, so this measures those three questions,
 * the built package's own `isTraced` (its chunk in dist/) against the same chunk of the copy that
 * found no `diagnostics_channel`, in alternating paired batches of many calls in one process.
 * It reports the median paired difference per call with its interquartile range and a bootstrap
 * 95% interval of the median, so a reader sees how far the figure is from 1000 ns.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const CALLS_PER_BATCH = 200_000;

/** The dist chunk that defines `isTraced`, exported by name (tsup keeps the names). */
function guardChunk(dist) {
  for (const name of readdirSync(dist))
    if (name.endsWith('.js') && /\bfunction isTraced\(/.test(readFileSync(join(dist, name), 'utf8')))
      return pathToFileURL(join(dist, name)).href;
  throw new Error(`no chunk of ${dist} defines isTraced`);
}

const quantile = (sorted, q) => {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
};
const median = (values) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** A bootstrap 95% interval of the median of `values` (a fixed seed: the same data, the same interval). */
export function bootstrapMedian(values, resamples = 2000) {
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const medians = [];
  for (let index = 0; index < resamples; index += 1)
    medians.push(median(values.map(() => values[Math.floor(random() * values.length)])));
  medians.sort((a, b) => a - b);
  return [quantile(medians, 0.025), quantile(medians, 0.975)];
}

/** Summary of paired differences: median, interquartile range, bootstrap 95% interval. */
export function summarize(differences) {
  const sorted = [...differences].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    iqr: [quantile(sorted, 0.25), quantile(sorted, 0.75)],
    ci95: bootstrapMedian(differences),
    rounds: differences.length,
  };
}

/** Runs `load` while `process.getBuiltinModule` is gone: a copy of the package loaded then finds no diagnostics_channel. */
export async function loadWithoutDiagnostics(load) {
  // Kept to be put back below, never called detached.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const getBuiltinModule = process.getBuiltinModule;
  process.getBuiltinModule = undefined;
  try {
    return await load();
  } finally {
    process.getBuiltinModule = getBuiltinModule;
  }
}

/**
 * Runs in the bench's child process (the bare copy must be loaded while `process.getBuiltinModule`
 * is removed): per round, one batch of each side, the order alternating; ns of CPU per call.
 */
export async function measureGuards(dist, bareDist, rounds) {
  const live = await import(guardChunk(dist));
  const bare = await loadWithoutDiagnostics(async () => {
    const chunk = await import(guardChunk(bareDist));
    // It looks for the channels once, at its first question, made now.
    if (chunk.isTraced('call')) throw new Error('the bare copy found diagnostics_channel');
    return chunk;
  });
  if (live.isTraced('call')) throw new Error('someone subscribes: the guards would say yes');
  // What one call of one request asks, as the transport asks it.
  const batch = ({ isTraced }) => {
    let traced = 0;
    const started = process.cpuUsage();
    for (let call = 0; call < CALLS_PER_BATCH; call += 1) {
      if (isTraced('call')) traced += 1;
      if (isTraced('rateLimitWait')) traced += 1;
      if (isTraced('attempt')) traced += 1;
    }
    const used = process.cpuUsage(started);
    if (traced !== 0) throw new Error('a guard said yes');
    return ((used.user + used.system) * 1000) / CALLS_PER_BATCH;
  };
  for (let warm = 0; warm < 5; warm += 1) {
    batch(live);
    batch(bare);
  }
  const differences = [];
  for (let round = 0; round < rounds; round += 1) {
    const first = round % 2 ? bare : live;
    const a = batch(first);
    const b = batch(first === live ? bare : live);
    differences.push(first === live ? a - b : b - a);
  }
  return differences;
}
