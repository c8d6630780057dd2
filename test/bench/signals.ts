/**
 * Cost of the signal stage against the floor it cannot beat by much: one bare decode of the
 * same file (`ffmpeg -i file -f null -`). Goal: ratio <= 1.5.
 *
 *   npx tsx test/bench/signals.ts [--minutes 10] [--runs 1] [--preset ultrafast|veryfast]
 *
 * The machine may be shared: with --runs N both timings are the best of N, interleaved. The
 * default file (x264 ultrafast: no B-frames, no deblocking) is the extractor's worst case, as
 * its decoder shortcuts have nothing to skip; `--preset veryfast` is closer to real uploads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveFfmpegPath, resolveFfprobePath } from '../../functions/adapters/ffmpeg-binaries.js';
import { runTool } from '../../functions/adapters/signals/ffmpeg-process.js';
import { FfmpegSignalExtractor } from '../../functions/adapters/signals/ffmpeg-signal-extractor.js';
import { longSource, type LongSourceOptions } from '../helpers/ground-truth-media.js';

export interface SignalsBenchResult {
  file: string;
  sourceSeconds: number;
  decodeSeconds: number;
  signalsSeconds: number;
  /** signalsSeconds / decodeSeconds. */
  ratio: number;
  /** Source seconds measured per wall-clock second. */
  xRealtime: number;
  /**
   * CPU seconds (user + system) of the same runs: the children's and, for the signals run, this
   * process's own (PCM analysis, log parsing). Steadier than wall time on a shared machine.
   * Null where /proc is missing.
   */
  decodeCpuSeconds: number | null;
  signalsCpuSeconds: number | null;
  cpuRatio: number | null;
}

const ffmpegPath = () => resolveFfmpegPath(process.env.FFMPEG_PATH);

/** CPU seconds of this process's reaped children (utime + stime of /proc/self/stat, 100 Hz ticks). */
function childrenCpuSeconds(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the parenthesised command name; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

export interface Timing {
  wall: number;
  cpu: number | null;
}

export async function timed(run: () => Promise<unknown>): Promise<Timing> {
  const children = childrenCpuSeconds();
  const own = process.cpuUsage();
  const start = performance.now();
  await run();
  const wall = (performance.now() - start) / 1000;
  const after = childrenCpuSeconds();
  const { user, system } = process.cpuUsage(own);
  return { wall, cpu: children === null || after === null ? null : after - children + (user + system) / 1e6 };
}

const best = (a: Timing, b: Timing): Timing => ({ wall: Math.min(a.wall, b.wall), cpu: a.cpu === null || b.cpu === null ? null : Math.min(a.cpu, b.cpu) });

export async function bareDecode(file: string): Promise<void> {
  const result = await runTool(ffmpegPath(), ['-hide_banner', '-nostdin', '-nostats', '-i', file, '-f', 'null', '-'], {
    timeoutMs: 30 * 60_000,
    maxOutputBytes: 16 * 1024 * 1024,
  });
  if (result.exitCode !== 0) throw new Error(`decode failed: ${result.stderr.slice(-1000)}`);
}

export interface SignalsBenchOptions {
  minutes?: number;
  runs?: number;
  preset?: LongSourceOptions['preset'];
}

export async function benchSignals(options: SignalsBenchOptions = {}): Promise<SignalsBenchResult> {
  const { minutes = 10, runs = 1, preset } = options;
  const file = await longSource({ minutes, preset });
  const sourceMs = minutes * 60_000;
  const extractor = new FfmpegSignalExtractor({
    ffmpegPath: ffmpegPath(),
    ffprobePath: resolveFfprobePath(process.env.FFPROBE_PATH),
    timeoutMs: 30 * 60_000,
  });
  let decode: Timing = { wall: Infinity, cpu: Infinity };
  let signals: Timing = { wall: Infinity, cpu: Infinity };
  for (let i = 0; i < runs; i += 1) {
    decode = best(decode, await timed(() => bareDecode(file)));
    signals = best(
      signals,
      await timed(() => extractor.extract({ url: file, mediaKind: 'video', durationMs: sourceMs, window: { startMs: 0, endMs: sourceMs } })),
    );
  }
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    file,
    sourceSeconds: sourceMs / 1000,
    decodeSeconds: round(decode.wall),
    signalsSeconds: round(signals.wall),
    ratio: round(signals.wall / decode.wall),
    xRealtime: round(sourceMs / 1000 / signals.wall),
    decodeCpuSeconds: decode.cpu === null ? null : round(decode.cpu),
    signalsCpuSeconds: signals.cpu === null ? null : round(signals.cpu),
    cpuRatio: decode.cpu === null || signals.cpu === null ? null : round(signals.cpu / decode.cpu),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { minutes: { type: 'string', default: '10' }, runs: { type: 'string', default: '1' }, preset: { type: 'string', default: 'ultrafast' } },
  });
  if (values.preset !== 'ultrafast' && values.preset !== 'veryfast') throw new Error('--preset is ultrafast or veryfast');
  console.log(await benchSignals({ minutes: Number(values.minutes), runs: Number(values.runs), preset: values.preset }));
}
