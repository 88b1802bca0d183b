/**
 * How many cases a property test tries. `npm test` tries every case a test asks for; the inner
 * loop (`npm run test:fast`, which sets FAST_LANE=1) tries a fifth of them, so every property
 * still runs on each change, and the full count runs in `npm test` before anything lands. Only the
 * costly ones use it: a property whose count is small, or whose checks need every case (a count of
 * what reached the handler, chaos of each kind seen), keeps its count in both lanes.
 */
const FAST_LANE_SHARE = 0.2;

export function propertyRuns(full: number): number {
  return process.env.FAST_LANE === '1' ? Math.ceil(full * FAST_LANE_SHARE) : full;
}
