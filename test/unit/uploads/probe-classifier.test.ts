import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assessTail,
  classifyLayout,
  decodedFrames,
  ProbeTransportError,
  summarizeStream,
  TAIL_SECONDS,
  type LayoutPass,
  type ProbeRun,
} from '../../../functions/domain/uploads/media-probe.js';
import { ffprobeInspector, probeArgs, type FfprobeRunner, type ProbeStage } from '../../../functions/adapters/media/ffprobe-inspector.js';
import type { Inspection } from '../../../functions/domain/uploads/ports.js';
import { mediaKindOf } from '../../../functions/domain/uploads/model.js';
import { sampleCases, sampleFile, URL_PLACEHOLDER, type ProbeSample } from './probe-samples/samples.js';

const MAX_MS = 120 * 60_000;
const SIGNED_URL = 'https://media.example/accounts/a/uploads/u?X-Amz-Signature=00ff';
const loadSample = (file: string): ProbeSample => JSON.parse(readFileSync(join(import.meta.dirname, 'probe-samples', file), 'utf8')) as ProbeSample;

/** Plays a recorded inspection back, checking that the inspector asks for exactly the recorded runs. */
function replay(sample: ProbeSample): { runner: FfprobeRunner; asked: { stage: ProbeStage; args: string[] }[] } {
  const asked: { stage: ProbeStage; args: string[] }[] = [];
  let next = 0;
  const runner: FfprobeRunner = (stage, args) => {
    asked.push({ stage, args: [...args] });
    const recorded = sample.runs[next++];
    if (!recorded) throw new Error(`Unexpected extra ffprobe run (${stage})`);
    return Promise.resolve({ exitCode: recorded.exitCode, stdout: recorded.stdout, stderr: recorded.stderr, timedOut: false });
  };
  return { runner, asked };
}

const inspectSample = async (sample: ProbeSample): Promise<{ verdict: Inspection; asked: { stage: ProbeStage; args: string[] }[] }> => {
  const { runner, asked } = replay(sample);
  const verdict = await ffprobeInspector(runner, 60_000).inspect(URL_PLACEHOLDER, sample.mediaKind, { maxDurationMs: MAX_MS });
  return { verdict, asked };
};

const run = (stdout: unknown, overrides: Partial<ProbeRun> = {}): ProbeRun => ({
  exitCode: 0,
  stdout: typeof stdout === 'string' ? stdout : JSON.stringify(stdout),
  stderr: '',
  timedOut: false,
  ...overrides,
});

describe('probe classifier on recorded ffprobe output of real files', () => {
  it.each(sampleCases.map((c) => [`${c.fixture} as ${c.contentType}`, c] as const))('%s', async (_name, sampleCase) => {
    const sample = loadSample(sampleFile(sampleCase));
    expect(sample.mediaKind).toBe(mediaKindOf(sampleCase.contentType));
    const { verdict, asked } = await inspectSample(sample);

    // The inspector still runs the recorded command lines (re-record after changing a stage).
    expect(asked).toEqual(sample.runs.map((r) => ({ stage: r.stage, args: r.args })));
    if (sampleCase.expected === 'ready') {
      expect(verdict).toMatchObject({ ok: true });
    } else {
      expect(verdict).toMatchObject({ ok: false, error: { code: sampleCase.expected } });
      if (!verdict.ok) expect(verdict.error.message.length).toBeGreaterThan(10);
    }
  });

  it('summarizes the streams of a ready video', async () => {
    const { verdict } = await inspectSample(loadSample('video.mp4--video.json'));
    expect(verdict).toEqual({
      ok: true,
      durationMs: 3000,
      streams: [
        { index: 0, type: 'video', codec: 'h264', width: 160, height: 120, frame_rate: 15, channels: null, sample_rate: null, attached_picture: false },
        { index: 1, type: 'audio', codec: 'aac', width: null, height: null, frame_rate: null, channels: 1, sample_rate: 44100, attached_picture: false },
      ],
    });
  });

  it.each(['cover-art.mp3--audio.json', 'cover-art.m4a--audio.json'])('accepts cover art in %s and never decodes it', async (file) => {
    const sample = loadSample(file);
    const { verdict, asked } = await inspectSample(sample);
    expect(verdict.ok).toBe(true);
    const picture = verdict.ok ? verdict.streams.find((s) => s.attached_picture) : undefined;
    expect(picture).toMatchObject({ type: 'video', codec: 'png', frame_rate: null, attached_picture: true });
    // Only the audio stream is ever selected for decoding.
    const decoded = asked.filter((a) => a.stage === 'head').map((a) => a.args[a.args.indexOf('-select_streams') + 1]);
    expect(decoded).toEqual(['0']);
    expect(decoded).not.toContain(String(picture?.index));
  });

  it('reports audio streams with channels and sample rate', async () => {
    for (const file of ['audio.flac--audio.json', 'audio.wav--audio.json', 'audio.opus--audio.json', 'silence.mp3--audio.json']) {
      const { verdict } = await inspectSample(loadSample(file));
      expect(verdict.ok ? verdict.streams[0] : undefined).toMatchObject({ type: 'audio', channels: 1, width: null, attached_picture: false });
    }
  });

  it('refuses a playlist before anything it references is fetched', () => {
    const sample = loadSample('playlist.m3u8--video.json');
    expect(sample.runs).toHaveLength(1);
    expect(sample.runs[0]?.stderr).toMatch(/not on whitelist/);
  });
});

describe('classifyLayout rules', () => {
  const stream = (extra: Record<string, unknown>) => ({ index: 0, codec_name: 'aac', codec_type: 'audio', sample_rate: '48000', channels: 2, ...extra });
  const layout = (streams: unknown[], format: Record<string, unknown> = { format_name: 'mov,mp4', duration: '10.0', start_time: '0' }) =>
    run({ streams, format });

  it('needs an audio stream for audio and a moving picture for video', () => {
    expect(classifyLayout('audio', layout([]), MAX_MS)).toMatchObject({ ok: false, error: { code: 'no_audio_stream' } });
    const picture = stream({ index: 1, codec_type: 'video', codec_name: 'mjpeg', width: 10, height: 10, disposition: { attached_pic: 1 } });
    expect(classifyLayout('video', layout([stream({}), picture]), MAX_MS)).toMatchObject({ ok: false, error: { code: 'no_video_stream' } });
    expect(classifyLayout('audio', layout([stream({}), picture]), MAX_MS)).toMatchObject({ ok: true, candidates: [0] });
  });

  it('fails an audio upload on any video stream that is not an attached picture', () => {
    const video = stream({ index: 1, codec_type: 'video', codec_name: 'h264', width: 10, height: 10, disposition: { attached_pic: 0 } });
    expect(classifyLayout('audio', layout([stream({}), video]), MAX_MS)).toMatchObject({
      ok: false,
      error: { code: 'unexpected_video_stream', message: expect.stringContaining('Stream 1') as string },
    });
  });

  it('calls streams without a usable codec undecodable', () => {
    expect(classifyLayout('audio', layout([stream({ codec_name: 'none' })]), MAX_MS)).toMatchObject({ ok: false, error: { code: 'undecodable_media' } });
    expect(classifyLayout('audio', layout([stream({ sample_rate: '0' })]), MAX_MS)).toMatchObject({ ok: false, error: { code: 'undecodable_media' } });
    const noSize = stream({ codec_type: 'video', codec_name: 'h264', width: 0, height: 0 });
    expect(classifyLayout('video', layout([noSize]), MAX_MS)).toMatchObject({ ok: false, error: { code: 'undecodable_media' } });
  });

  it('enforces the duration limit and needs a duration at all', () => {
    expect(classifyLayout('audio', layout([stream({})], { duration: '7200.0' }), MAX_MS)).toMatchObject({ ok: true, durationMs: 7_200_000 });
    expect(classifyLayout('audio', layout([stream({})], { duration: '7200.5' }), MAX_MS)).toMatchObject({
      ok: false,
      error: { code: 'duration_exceeds_limit' },
    });
    expect(classifyLayout('audio', layout([stream({})], {}), MAX_MS)).toMatchObject({ ok: false, error: { code: 'unreadable_media' } });
    // A missing container duration falls back to the longest stream.
    expect(classifyLayout('audio', layout([stream({ duration: '4.5' })], {}), MAX_MS)).toMatchObject({ ok: true, durationMs: 4500 });
  });

  it('maps open failures to truncated or unreadable', () => {
    const failed = (stderr: string) => run({ error: { code: -1094995529, string: 'Invalid data found when processing input' } }, { exitCode: 1, stderr });
    expect(classifyLayout('video', failed('moov atom not found'), MAX_MS)).toMatchObject({ ok: false, error: { code: 'truncated_media' } });
    expect(classifyLayout('video', failed(''), MAX_MS)).toMatchObject({ ok: false, error: { code: 'unreadable_media' } });
    expect(classifyLayout('video', run('not json'), MAX_MS)).toMatchObject({ ok: false, error: { code: 'unreadable_media' } });
  });

  it('starts the tail read TAIL_SECONDS before the declared end', () => {
    const verdict = classifyLayout('audio', layout([stream({})], { duration: '60', start_time: '1.5' }), MAX_MS) as LayoutPass;
    expect(verdict.endSeconds).toBe(61.5);
    expect(verdict.tailStartSeconds).toBe(61.5 - TAIL_SECONDS);
  });

  it('summarizes frame rates from avg_frame_rate, else r_frame_rate', () => {
    const base = { index: 2, codec_type: 'video', codec_name: 'vp9', width: 640, height: 360 };
    expect(summarizeStream({ ...base, avg_frame_rate: '30000/1001' }).frame_rate).toBe(29.97);
    expect(summarizeStream({ ...base, avg_frame_rate: '0/0', r_frame_rate: '25/1' }).frame_rate).toBe(25);
    expect(summarizeStream({ ...base, avg_frame_rate: '0/0' }).frame_rate).toBeNull();
  });
});

describe('head and tail verdicts', () => {
  const pass = classifyLayout(
    'audio',
    run({
      streams: [{ index: 0, codec_type: 'audio', codec_name: 'mp3', sample_rate: '44100', channels: 2 }],
      format: { format_name: 'mp3', duration: '100', start_time: '0' },
    }),
    MAX_MS,
  ) as LayoutPass;
  const packets = (...ends: number[]) => run({ packets: ends.map((end) => ({ stream_index: 0, pts_time: String(end - 0.02), duration_time: '0.02' })) });

  it('counts decoded frames', () => {
    expect(decodedFrames(run({ streams: [{ index: 0, nb_read_frames: '50' }] }))).toBe(50);
    expect(decodedFrames(run({ streams: [{ index: 0, nb_read_frames: '0' }] }))).toBe(0);
    expect(decodedFrames(run({}, { exitCode: 1 }))).toBe(0);
  });

  it('accepts data that reaches the declared end', () => {
    expect(assessTail(pass, packets(97, 98, 99.9))).toEqual({ ok: true });
    expect(assessTail(pass, packets(99.6))).toEqual({ ok: true });
  });

  it('calls data that stops early, a demuxer error or no packets at all truncated', () => {
    expect(assessTail(pass, packets(96, 97))).toMatchObject({ ok: false, error: { code: 'truncated_media' } });
    expect(assessTail(pass, { ...packets(99.9), stderr: 'stream 0, offset 0x1: partial file' })).toMatchObject({
      ok: false,
      error: { code: 'truncated_media' },
    });
    expect(assessTail(pass, packets())).toMatchObject({ ok: false, error: { code: 'truncated_media' } });
  });

  it('does not hold data-derived lengths (ADTS, WAV) to a declared end', () => {
    expect(assessTail({ ...pass, lengthDeclared: false }, packets(50))).toEqual({ ok: true });
  });
});

describe('ffprobeInspector', () => {
  const goodLayout = run({
    streams: [{ index: 0, codec_type: 'audio', codec_name: 'mp3', sample_rate: '44100', channels: 1 }],
    format: { format_name: 'mp3', duration: '3', start_time: '0' },
  });
  const scripted =
    (answers: Partial<Record<ProbeStage, ProbeRun>>): FfprobeRunner =>
    (stage) =>
      Promise.resolve(answers[stage] ?? run({}));

  it('fails closed as undecodable when no candidate decodes', async () => {
    const runner = scripted({ layout: goodLayout, head: run({ streams: [{ index: 0, nb_read_frames: '0' }] }) });
    await expect(ffprobeInspector(runner, 5000).inspect(SIGNED_URL, 'audio', { maxDurationMs: MAX_MS })).resolves.toMatchObject({
      ok: false,
      error: { code: 'undecodable_media' },
    });
  });

  it('fails closed with inspection_timeout when a run exceeds the budget', async () => {
    const runner = scripted({ layout: { ...goodLayout, timedOut: true } });
    await expect(ffprobeInspector(runner, 5000).inspect(SIGNED_URL, 'audio', { maxDurationMs: MAX_MS })).resolves.toMatchObject({
      ok: false,
      error: { code: 'inspection_timeout' },
    });
  });

  it('throws, rather than judging the media, when ffprobe cannot fetch the bytes', async () => {
    const runner = scripted({ layout: run('', { exitCode: 1, stderr: 'Server returned 403 Forbidden (access denied)' }) });
    await expect(ffprobeInspector(runner, 5000).inspect(SIGNED_URL, 'audio', { maxDurationMs: MAX_MS })).rejects.toBeInstanceOf(ProbeTransportError);
  });

  it('never lets the signed URL into an error (it would be logged)', async () => {
    const url = 'https://bucket.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2Fx&X-Amz-Signature=abcdef0123';
    const stderr = `[https @ 0x1] HTTP error 403 Forbidden\n${url}: Server returned 403 Forbidden (access denied)\nX-Amz-Signature=abcdef0123`;
    const runner = scripted({ layout: run('', { exitCode: 1, stderr }) });
    const error = await ffprobeInspector(runner, 5000)
      .inspect(url, 'audio', { maxDurationMs: MAX_MS })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProbeTransportError);
    expect((error as Error).message).toContain('<signed-url>');
    expect((error as Error).message).not.toContain('abcdef0123');
  });

  it('hands the remaining budget to each run', async () => {
    const budgets: number[] = [];
    const runner: FfprobeRunner = (stage, _args, timeoutMs) => {
      budgets.push(timeoutMs);
      if (stage === 'layout') return Promise.resolve(goodLayout);
      if (stage === 'head') return Promise.resolve(run({ streams: [{ index: 0, nb_read_frames: '5' }] }));
      return Promise.resolve(run({ packets: [{ stream_index: 0, pts_time: '2.9', duration_time: '0.1' }] }));
    };
    await expect(ffprobeInspector(runner, 5000).inspect(SIGNED_URL, 'audio', { maxDurationMs: MAX_MS })).resolves.toMatchObject({ ok: true, durationMs: 3000 });
    expect(budgets).toHaveLength(3);
    for (const budget of budgets) expect(budget).toBeLessThanOrEqual(5000);
  });

  it('restricts every run to the signed URL and the supported demuxers', () => {
    for (const args of [probeArgs.layout('U'), probeArgs.head('U', 1), probeArgs.tail('U', 12.5)]) {
      expect(args.at(-1)).toBe('U');
      expect(args[args.indexOf('-protocol_whitelist') + 1]).toBe('http,https,tcp,tls');
      expect(args[args.indexOf('-format_whitelist') + 1]).toBe('mov,matroska,mp3,wav,aiff,aac,ogg,flac');
    }
    expect(probeArgs.tail('U', 12.5)).toContain('12.500%+1000000');
    expect(probeArgs.head('U', 1)).toEqual(expect.arrayContaining(['-select_streams', '1', '-count_frames']));
  });
});
