import { describe, expect, it } from 'vitest';
import { THUMB_BYTES, THUMB_HEIGHT, THUMB_WIDTH, VideoFrameAnalyzer } from '../../../../functions/adapters/signals/video-frames.js';

/** A yuv420p thumbnail of one colour. */
function frame(y: number, u = 128, v = 128): Buffer {
  const luma = THUMB_WIDTH * THUMB_HEIGHT;
  return Buffer.concat([Buffer.alloc(luma, y), Buffer.alloc(luma / 4, u), Buffer.alloc(luma / 4, v)]);
}

describe('VideoFrameAnalyzer', () => {
  it('measures the mean luma difference of each frame to the one before', () => {
    const analyzer = new VideoFrameAnalyzer();
    analyzer.push(Buffer.concat([frame(100), frame(100), frame(110), frame(90)]));
    expect(analyzer.result().differences).toEqual([0, 10, 20]);
    expect(analyzer.result().count).toBe(4);
  });

  it('averages Y, U and V over all frames, however the stream is chunked', () => {
    const bytes = Buffer.concat([frame(100, 90, 200), frame(50, 110, 100)]);
    const analyzer = new VideoFrameAnalyzer();
    for (let offset = 0; offset < bytes.length; offset += 1000) analyzer.push(bytes.subarray(offset, offset + 1000));
    expect(analyzer.result().meanYuv).toEqual([75, 100, 150]);
    expect(THUMB_BYTES).toBe(3456);
  });

  it('has no colour without frames and ignores a trailing partial frame', () => {
    const analyzer = new VideoFrameAnalyzer();
    analyzer.push(frame(10).subarray(0, 100));
    expect(analyzer.result()).toEqual({ count: 0, differences: [], meanYuv: null, gradual: [], flashes: [] });
  });
});
