import type { Clock } from './clock.js';
import { WaitTimeoutError } from './errors.js';

export interface WaitOptions<T> {
  /** Each wait between polls is drawn from [min, max] ms: SPEC asks for 5-10 s with jitter. @default [5000, 10000] */
  intervalMs?: readonly [number, number];
  /** Give up (WaitTimeoutError) after this long; the work goes on. @default 3 hours */
  timeoutMs?: number;
  /** Every record seen before the terminal one. */
  onUpdate?: (record: T) => void;
  signal?: AbortSignal;
}

/** Polls `read` until `done` says the record is terminal, sleeping a jittered interval in between. */
export async function pollUntil<T>(read: () => Promise<T>, done: (record: T) => boolean, clock: Clock, options: WaitOptions<T> = {}): Promise<T> {
  const [min, max] = options.intervalMs ?? [5_000, 10_000];
  const deadline = clock.now() + (options.timeoutMs ?? 3 * 3600_000);
  for (;;) {
    const record = await read();
    if (done(record)) return record;
    options.onUpdate?.(record);
    const wait = min + clock.random() * (max - min);
    if (clock.now() + wait > deadline)
      throw new WaitTimeoutError(`Still not finished after ${Math.round((options.timeoutMs ?? 3 * 3600_000) / 1000)} s; it goes on.`);
    await clock.sleep(wait, options.signal);
  }
}

export const terminalRunStatuses: ReadonlySet<string> = new Set(['completed', 'failed']);
export const terminalAnalysisStatuses: ReadonlySet<string> = new Set(['completed', 'failed', 'canceled']);
export const terminalBatchStatuses: ReadonlySet<string> = new Set(['completed', 'partial', 'failed', 'canceled']);
