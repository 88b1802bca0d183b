/** Types of budget-run.mjs (plain JavaScript, shared with the bench). */
export type Priority = 'interactive' | 'background';

/** One caller of a process: `priority` is passed per call when given; `pauseMs` rests between calls; `everyMs` asks on a timetable (from `delayMs` after the start, one call per `everyMs`, a missed turn skipped). */
export interface CallerSpec {
  priority?: Priority;
  pauseMs?: number;
  delayMs?: number;
  everyMs?: number;
}

export interface ProcessSpec {
  client?: 'ioredis' | 'node-redis';
  skewMs?: number;
  /** How many callers (default 3), each with `priority` and `pauseMs`, or each caller's own options. */
  callers?: number | CallerSpec[];
  priority?: Priority;
  pauseMs?: number;
}

/** One wait for a slot, from asking to being granted (or to giving up: then a lower bound). */
export interface Wait {
  caller: number | null;
  priority: Priority;
  askedAt: number;
  waitMs: number;
  reason?: string;
}

export interface ProcessReport {
  index: number;
  client: string;
  callers: CallerSpec[];
  /** Epoch ms of each answered call, in this process. */
  ok: number[];
  refused: number;
  grants: Wait[];
  gaveUp: Wait[];
  warnings: string[];
  errors: string[];
  done: { answered: number; failed: number; shared?: boolean } | undefined;
  exit: number | string | undefined;
  stderr: string;
}

export interface WaitFigures {
  grants: number;
  /** Longest wait in ms, waits cut short by the end of the run included. */
  max: number;
  p95: number;
  /** Waits that ended without a slot (cut by the run's end, or failed). */
  unfinished: number;
}

export interface RunSummary {
  reports: ProcessReport[];
  accepted: number[];
  gaps: number[];
  efficiency: number;
  refused: number;
  shares: number[];
  shareRatio: number;
  waits: WaitFigures[];
  interactiveWaits: WaitFigures;
  backgroundWaits: WaitFigures;
}

/** A run's summary, with when the processes were told to go and where the time went. */
export interface RunResult extends RunSummary {
  /** Epoch ms of the "go" line. */
  startedAt: number;
  /** From spawning the processes to all of them ready (not part of the run). */
  startupMs: number;
  /** From "go" to the last process's exit. */
  runToExitMs: number;
}

export interface ServerFigures {
  acceptedAt: number[];
  refusedAt: number[];
  accepted: number;
  refused: number;
  gaps: number[];
  maxGap: number;
  efficiency: number;
}

export function runBudgetProcesses(options: {
  sdk: { dist?: string; source?: string };
  baseUrl: string;
  partner: { partnerId: string; apiToken: string };
  redisUrl: string;
  processes: ProcessSpec[];
  runMs: number;
  rate?: number;
  during?: (run: { kill: (index: number) => void; startedAt: number }) => Promise<void>;
  worker?: string;
  env?: Record<string, string>;
  workerNice?: number;
}): Promise<RunResult>;

export function judgeAbovePartners(): number;
export function startCpuNeighbours(count?: number, nice?: number): { count: number; stop(): void };

export function summarise(reports: ProcessReport[], rate?: number): RunSummary;
export function serverFigures(
  record: { acceptedAt: number[]; refused: number; refusedAt?: number[] },
  rate?: number,
): ServerFigures;
export function quantile(values: number[], p: number): number;
