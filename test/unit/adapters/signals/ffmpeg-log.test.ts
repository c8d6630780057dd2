import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  logLines,
  parseBlackdetect,
  parseEbur128,
  parseFrameMetadata,
  parseFreezedetect,
  parseSceneScores,
  parseSilencedetect,
  SCENE_SCORE_KEY,
} from '../../../../functions/adapters/signals/ffmpeg-log.js';
import { sampleFile, sampleWindows } from './samples/record-samples.js';

// Recorded ffmpeg 4.1 output of the extractor's command on two windows of the ground-truth
// video (see samples/record-samples.ts); stream times start at 0 at the window start.
const [cutsWindow, freezeWindow] = sampleWindows;
const cutsLog = readFileSync(sampleFile(cutsWindow), 'utf8');
const freezeLog = readFileSync(sampleFile(freezeWindow), 'utf8');

describe('parseFrameMetadata / parseSceneScores (recorded)', () => {
  it('times every analysed frame (10 fps)', () => {
    expect(parseFrameMetadata(cutsLog).get(SCENE_SCORE_KEY)).toHaveLength(70);
    const scores = parseSceneScores(cutsLog);
    expect(scores.slice(0, 3).map((s) => s.timeS)).toEqual([0, 0.1, 0.2]);
    expect(scores.every((s) => s.value >= 0 && s.value <= 1)).toBe(true);
  });

  it('finds the hard cuts (10, 12 and 14 s of the source) as the only high scores', () => {
    const cuts = parseSceneScores(cutsLog).filter((s) => s.value > 0.3);
    expect(cuts.map((c) => c.timeS)).toEqual([0.5, 2.5, 4.5]);
  });

  it('accepts pre-split lines and ignores lines of other filter instances', () => {
    const log = [
      '[Parsed_metadata_6 @ 0x1] frame:0    pts:0       pts_time:0',
      '[Parsed_metadata_7 @ 0x2] frame:0    pts:0       pts_time:5',
      '[Parsed_metadata_6 @ 0x1] lavfi.scene_score=0.250000',
      '[Parsed_metadata_7 @ 0x2] lavfi.signalstats.YDIF=1.5',
      '[Parsed_metadata_9 @ 0x3] lavfi.scene_score=0.9', // no header for this instance: untimed
      '[h264 @ 0x4] error while decoding MB 3 4',
    ];
    const frames = parseFrameMetadata(log);
    expect(frames.get('lavfi.scene_score')).toEqual([{ timeS: 0, value: 0.25 }]);
    expect(frames.get('lavfi.signalstats.YDIF')).toEqual([{ timeS: 5, value: 1.5 }]);
  });
});

describe('parseBlackdetect', () => {
  it('reads the black span (12-14 s of the source)', () => {
    expect(parseBlackdetect(cutsLog)).toEqual([{ startS: 2.5, endS: 4.5 }]);
    expect(parseBlackdetect(freezeLog)).toEqual([]);
  });
});

describe('parseFreezedetect', () => {
  it('reads the frozen span (22-24 s) and the black one, which is frozen too', () => {
    expect(parseFreezedetect(freezeLog)).toEqual([{ startS: 1, endS: 3 }]);
    expect(parseFreezedetect(cutsLog)).toEqual([{ startS: 2.5, endS: 4.5 }]);
  });

  it('leaves a span open when the stream ends frozen (4.1 prints no end at EOF)', () => {
    expect(parseFreezedetect('[freezedetect @ 0x1] lavfi.freezedetect.freeze_start: 7.5')).toEqual([{ startS: 7.5, endS: null }]);
  });
});

describe('parseSilencedetect', () => {
  it('reads the silence (25-28 s)', () => {
    expect(parseSilencedetect(freezeLog)).toEqual([{ startS: 4, endS: 7.00012 }]);
    expect(parseSilencedetect(cutsLog)).toEqual([]);
  });

  it('pairs starts and ends and keeps a trailing open span', () => {
    const log = [
      '[silencedetect @ 0x1] silence_start: -0.00625',
      '[silencedetect @ 0x1] silence_end: 1.5 | silence_duration: 1.50625',
      '  silencedetect -> Stream #2:0 (pcm_s16le)',
      '[silencedetect @ 0x1] silence_start: 9',
    ].join('\n');
    expect(parseSilencedetect(log)).toEqual([
      { startS: -0.00625, endS: 1.5 },
      { startS: 9, endS: null },
    ]);
  });
});

describe('parseEbur128', () => {
  it('reads momentary loudness every 100 ms and the last summary (not the probe instance)', () => {
    const { momentary, integratedLufs } = parseEbur128(cutsLog);
    expect(momentary).toHaveLength(70);
    expect(momentary[0]?.timeS).toBeCloseTo(0.1, 3);
    // The quiet tone, then the loud burst (15-16 s of the source = 5.5-6.5 s of the window).
    expect(momentary.find((m) => m.timeS > 2 && m.timeS < 3)?.value).toBeCloseTo(-34.2, 0);
    expect(Math.max(...momentary.map((m) => m.value))).toBeGreaterThan(-10);
    expect(integratedLufs).toBe(-8.5);
  });

  it('reads -120.7 for digital silence and returns null without a summary', () => {
    const line = '[Parsed_ebur128_9 @ 0x1] t: 26.1       TARGET:-23 LUFS    M:-120.7 S:-120.7     I:  -8.5 LUFS       LRA:  22.5 LU';
    expect(parseEbur128(line)).toEqual({ momentary: [{ timeS: 26.1, value: -120.7 }], integratedLufs: null });
  });
});

describe('logLines', () => {
  it('splits CRLF and LF logs alike', () => {
    expect(logLines('a\r\nb\nc')).toEqual(['a', 'b', 'c']);
  });
});
