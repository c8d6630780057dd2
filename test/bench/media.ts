import { longSource, shortSource, type LongSourceOptions } from '../helpers/ground-truth-media.js';

/**
 * The look of the run benchmarks' sources: 640x360 H.264 (x264 ultrafast) + AAC, a hard cut every
 * 10 s and a loud burst in every scene. A quarter of 720p's pixels: the runs show more of the
 * service's own time than of the decoder's.
 */
const runSourceLook = { width: 640, height: 360, loudBursts: true } satisfies Omit<LongSourceOptions, 'minutes'>;

/** Three 600 s chunks at the default CHUNK_SECONDS. */
export const LONG_SOURCE_SECONDS = 30 * 60;
export const longRunSource = (): Promise<string> => longSource({ minutes: LONG_SOURCE_SECONDS / 60, ...runSourceLook });

/** One scene: a loud burst at 3-4 s, no cut. One chunk, one credit. */
export const CLIP_SECONDS = 5;
export const shortClip = (): Promise<string> => shortSource(CLIP_SECONDS, runSourceLook);
