import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SignalExtractionError } from '../../../../functions/adapters/signals/errors.js';
import { resolveFfmpegPath, resolveFfprobePath } from '../../../../functions/adapters/ffmpeg-binaries.js';
import { runTool } from '../../../../functions/adapters/signals/ffmpeg-process.js';
import { failureReason } from '../../../../functions/adapters/signals/ffmpeg-signal-extractor.js';
import { ffmpegRuns, ffprobeArgs, videoPartBounds } from '../../../../functions/adapters/signals/filter-graph.js';
import { parseProbe, parseRate } from '../../../../functions/adapters/signals/probe.js';
import { ffmpegPath } from '../../../helpers/ground-truth-media.js';

describe('resolveFfmpegPath / resolveFfprobePath', () => {
  it('prefers the configured path and falls back to the installer packages', () => {
    expect(resolveFfmpegPath('/opt/bin/ffmpeg')).toBe('/opt/bin/ffmpeg');
    expect(resolveFfprobePath('/opt/bin/ffprobe')).toBe('/opt/bin/ffprobe');
    expect(existsSync(resolveFfmpegPath())).toBe(true);
    expect(existsSync(resolveFfprobePath(''))).toBe(true);
  });
});

describe('ffmpegRuns', () => {
  const base = { url: '/media/a.mp4', videoStream: 0, audioStream: 1 };
  const graphOf = (args: readonly string[] | null) => args?.[args.indexOf('-filter_complex') + 1] ?? '';

  it('seeks each input to the window and decodes the picture and the sound once each, in two runs', () => {
    const runs = ffmpegRuns({ ...base, window: { startMs: 61_500, endMs: 121_500 } });
    expect(runs.video).toHaveLength(1);
    const video = runs.video[0]?.args ?? null;
    const audio = runs.audio;
    for (const args of [video ?? [], audio ?? []]) {
      const input = args.indexOf('-i');
      expect(args.slice(input - 4, input + 2)).toEqual(['-ss', '61.500', '-t', '60.000', '-i', '/media/a.mp4']);
      expect(args.filter((a) => a === '-i')).toHaveLength(1);
    }
    expect(graphOf(video)).toMatch(/^\[0:0\]fps=10,scale=160:-2/);
    for (const filter of ['blackdetect', 'freezedetect', 'scene', 'scale=64:36']) expect(graphOf(video)).toContain(filter);
    for (const filter of ['[0:1]asplit', 'ebur128', 'silencedetect']) expect(graphOf(audio)).toContain(filter);
    expect(graphOf(video)).not.toContain('[0:1]');
    expect(graphOf(audio)).not.toContain('[0:0]');
    expect(video?.join(' ')).toContain('-map [thumbnails] -flush_packets 0 -f rawvideo pipe:4');
    expect(video?.join(' ')).toContain('-skip_frame:v noref');
    // Frame threads only where every frame is decoded anyway (no B-frames to skip).
    expect(video).not.toContain('-threads:v');
    expect(ffmpegRuns({ ...base, bFrames: true, window: { startMs: 0, endMs: 5_000 } }).video[0]?.args.join(' ')).toContain('-threads:v 1');
    expect(audio).toContain('-vn');
    expect(audio?.slice(-3)).toEqual(['-f', 's16le', 'pipe:3']);
  });

  it('splits a long picture decode into parts with a pre-roll and an overlap, one decoder thread each', () => {
    const window = { startMs: 10_000, endMs: 10_000 + 600_000 };
    expect(ffmpegRuns({ ...base, window, videoParts: 1 }).video).toHaveLength(1);
    const { video } = ffmpegRuns({ ...base, window, videoParts: 2 });
    expect(video.map(({ fromS, toS, keepFromS, keepToS }) => [fromS, toS, keepFromS, keepToS])).toEqual([
      [0, 303, 0, 300],
      [299, 600, 300, 600],
    ]);
    const second = video[1]?.args ?? [];
    const input = second.indexOf('-i');
    expect(second.slice(input - 4, input)).toEqual(['-ss', '309.000', '-t', '301.000']);
    expect(second.join(' ')).toContain('-threads:v 1');
    // Never parts shorter than a minute.
    expect(videoPartBounds(90, 4)).toHaveLength(1);
    expect(videoPartBounds(250, 4).map((p) => p.keepToS)).toEqual([62, 124, 186, 250]);
  });

  it('leaves out -ss at 0, the video run for audio, and adds a read timeout for URLs only', () => {
    const audioOnly = ffmpegRuns({ ...base, url: 'https://bucket.example/a.m4a?X-Amz-Signature=abc', videoStream: null, window: { startMs: 0, endMs: 5_000 } });
    expect(audioOnly.video).toEqual([]);
    expect(audioOnly.audio).not.toContain('-ss');
    expect(graphOf(audioOnly.audio)).not.toContain('fps=');
    expect(audioOnly.audio).toContain('-rw_timeout');
    const local = ffmpegRuns({ ...base, window: { startMs: 0, endMs: 5_000 } });
    expect(local.video[0]?.args).not.toContain('-rw_timeout');
    expect(local.audio).not.toContain('-rw_timeout');
    expect(audioOnly.audio).not.toContain('pipe:4');
    const videoOnly = ffmpegRuns({ ...base, audioStream: null, window: { startMs: 0, endMs: 5_000 } });
    expect(videoOnly.audio).toBeNull();
    expect(videoOnly.video[0]?.args).not.toContain('pipe:3');
    expect(ffprobeArgs('/media/a.mp4').at(-1)).toBe('/media/a.mp4');
  });
});

describe('parseProbe', () => {
  it('takes the first real video stream (not cover art) and the first audio stream', () => {
    const json = JSON.stringify({
      streams: [
        { index: 0, codec_type: 'video', width: 600, height: 600, avg_frame_rate: '0/0', r_frame_rate: '90000/1', disposition: { attached_pic: 1 } },
        { index: 1, codec_type: 'audio' },
        { index: 2, codec_type: 'video', width: 1920, height: 1080, avg_frame_rate: '30000/1001', has_b_frames: 2, disposition: { attached_pic: 0 } },
      ],
    });
    expect(parseProbe(json)).toEqual({ video: { index: 2, width: 1920, height: 1080, frameRate: 29.97, bFrames: true }, audio: { index: 1 } });
    expect(parseProbe('{"streams":[{"index":0,"codec_type":"audio"}]}')).toEqual({ video: null, audio: { index: 0 } });
    // ffprobe's shape for a phone's portrait video: stored 1920x1080, rotated -90°.
    const portrait = '{"streams":[{"index":0,"codec_type":"video","width":1920,"height":1080,"avg_frame_rate":"30/1","side_data_list":[{"rotation":-90}]}]}';
    expect(parseProbe(portrait).video).toMatchObject({ width: 1080, height: 1920, bFrames: false });
    expect(parseProbe('{}')).toEqual({ video: null, audio: null });
  });

  it('parses frame rates', () => {
    expect(parseRate('25/1')).toBe(25);
    expect(parseRate('0/0')).toBeNull();
    expect(parseRate('24')).toBe(24);
    expect(parseRate(undefined)).toBeNull();
  });
});

describe('failureReason', () => {
  it('keeps the last message lines and hides the (presigned) URL', () => {
    const url = 'http://127.0.0.1:4569/media/a.mp4?X-Amz-Signature=secret';
    const stderr = `Input #0 ...\n[Parsed_metadata_1 @ 0x1] frame:0\n${url}: Invalid data found when processing input\n`;
    const reason = failureReason(stderr, url);
    expect(reason).toContain('<source>: Invalid data found when processing input');
    expect(reason).not.toContain('secret');
    expect(failureReason('see https://other.example/x?sig=1 for details', url)).toBe('see <url> for details');
  });
});

describe('runTool', () => {
  const endless = ['-hide_banner', '-nostdin', '-f', 'lavfi', '-i', 'anullsrc', '-f', 'null', '-'];

  it('returns the exit code and output of a finished run', async () => {
    const result = await runTool(ffmpegPath(), ['-hide_banner', '-version'], { timeoutMs: 10_000, maxOutputBytes: 1e6 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^ffmpeg version/);
  });

  it('kills a child that runs past its timeout', async () => {
    const started = Date.now();
    await expect(runTool(ffmpegPath(), endless, { timeoutMs: 300, maxOutputBytes: 1e6 })).rejects.toThrow(/did not finish within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('kills a child that prints too much', async () => {
    await expect(runTool(ffmpegPath(), ['-f', 'lavfi', '-i', 'anullsrc', '-f', 'null', '-'], { timeoutMs: 10_000, maxOutputBytes: 200 })).rejects.toThrow(
      /printed more than 200 bytes/,
    );
  });

  it('kills the child on abort and rejects with the abort reason', async () => {
    const controller = new AbortController();
    const run = runTool(ffmpegPath(), endless, { timeoutMs: 10_000, maxOutputBytes: 1e6, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('run cancelled')), 100);
    await expect(run).rejects.toThrow('run cancelled');
  });

  it('reports a binary that cannot be started as a SignalExtractionError', async () => {
    await expect(runTool('/nonexistent/ffmpeg', [], { timeoutMs: 1_000, maxOutputBytes: 1e6 })).rejects.toBeInstanceOf(SignalExtractionError);
  });
});
