/**
 * Progress bars (cli-progress) on stderr, and only when stdout is a terminal: piped or captured
 * output, and --json, stay free of escape codes.
 */
import { SingleBar } from 'cli-progress';
import { bytes } from './output.js';

export interface Bar {
  update(fraction: number, detail: string): void;
  stop(): void;
}

const silent: Bar = { update: () => undefined, stop: () => undefined };

export function progressBar(label: string, enabled: boolean): Bar {
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

export const uploadDetail = (sent: number, total: number): string => `${bytes(sent)} / ${bytes(total)}`;

/** What /progress says, in words: the queue position while queued, chunks while processing. */
export function workDetail(progress: { status: string; queue_position: number | null; chunks_done: number; chunks_total: number | null }): string {
  if (progress.queue_position !== null) return `${progress.status}, position ${progress.queue_position} in the queue`;
  if (progress.chunks_total) return `${progress.status}, chunk ${progress.chunks_done}/${progress.chunks_total}`;
  return progress.status;
}
