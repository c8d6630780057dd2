/**
 * Progress bars (cli-progress) on stderr, and only when stdout is a terminal: piped or captured
 * output, and --json, stay free of escape codes.
 */
import { SingleBar } from 'cli-progress';
import type { ScannerBatch } from '../../client/src/index.js';
import { bytes } from './output.js';

interface Bar {
  update(fraction: number, detail: string): void;
  stop(): void;
}

const silent: Bar = { update: () => undefined, stop: () => undefined };

function progressBar(label: string, enabled: boolean): Bar {
  if (!enabled || !process.stdout.isTTY || !process.stderr.isTTY) return silent;
  const bar = new SingleBar({
    format: `${label.padEnd(10)} [{bar}] {percentage}% {detail}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
    barsize: 30,
  });
  bar.start(1000, 0, { detail: '' });
  return {
    update: (fraction, detail) => bar.update(Math.round(Math.min(1, Math.max(0, fraction)) * 1000), { detail }),
    stop: () => bar.stop(),
  };
}

/** Runs `work` with a bar that is stopped (the line ended) however the work ends. */
export async function withBar<T>(label: string, enabled: boolean, work: (bar: Bar) => Promise<T>): Promise<T> {
  const bar = progressBar(label, enabled);
  try {
    return await work(bar);
  } finally {
    bar.stop();
  }
}

/** The bar's last frame says how the work ended (/progress is not read once it has). */
export const ended =
  <T extends { status: string }>(bar: Bar) =>
  (record: T): T => {
    bar.update(record.status === 'completed' ? 1 : 0, record.status);
    return record;
  };

export const uploadDetail = (sent: number, total: number): string => `${bytes(sent)} / ${bytes(total)}`;

/** What /progress says, in words: the queue position while queued, chunks while processing. */
export function workDetail(progress: { status: string; queue_position: number | null; chunks_done: number; chunks_total: number | null }): string {
  if (progress.queue_position !== null) return `${progress.status}, position ${progress.queue_position} in the queue`;
  if (progress.chunks_total) return `${progress.status}, chunk ${progress.chunks_done}/${progress.chunks_total}`;
  return progress.status;
}

/** `{total, queued, processing, completed, failed, canceled}`, as the API counts a batch's items. */
export type BatchCounters = ScannerBatch['counters'];

/** A batch's counters in one line: `processing 3/10 settled: 2 completed, 1 failed, 0 canceled; 4 running, 3 queued`. */
export function countersLine(status: string, c: BatchCounters): string {
  return `${status} ${c.completed + c.failed + c.canceled}/${c.total} settled: ${c.completed} completed, ${c.failed} failed, ${c.canceled} canceled; ${c.processing} running, ${c.queued} queued`;
}

interface CounterDisplay {
  update(status: string, counters: BatchCounters): void;
  /** The last line, ended with a newline. */
  stop(status: string, counters: BatchCounters): void;
}

/**
 * A live view of a batch's counters on `stream` (stderr). On a terminal one line rewritten in
 * place; otherwise a plain line whenever the counters change, and at least every `everyMs` while
 * they do not (a heartbeat for logs). Silent when `enabled` is false (--json).
 */
export function counterDisplay(
  enabled: boolean,
  options: { stream?: Pick<NodeJS.WriteStream, 'write'>; tty?: boolean; everyMs?: number; now?: () => number } = {},
): CounterDisplay {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? Boolean(process.stdout.isTTY && process.stderr.isTTY);
  const everyMs = options.everyMs ?? 60_000;
  const now = options.now ?? Date.now;
  let last: string | undefined;
  let lastAt = 0;
  const show = (line: string, final: boolean) => {
    if (!enabled) return;
    if (tty) {
      // \r and erase-line: the same line, rewritten.
      stream.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    } else if (line !== last || now() - lastAt >= everyMs || final) {
      if (!(final && line === last)) stream.write(`${line}\n`);
      lastAt = now();
    }
    last = line;
  };
  return {
    update: (status, counters) => show(countersLine(status, counters), false),
    stop: (status, counters) => show(countersLine(status, counters), true),
  };
}
