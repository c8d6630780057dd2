/**
 * Real media files for upload tests, generated at test time with the project's ffmpeg (FFMPEG_PATH
 * or the npm-shipped ffmpeg 4.1) from lavfi sources: nothing binary is committed. Files are
 * written once into a temp directory keyed by the recipes, so every test file of a run (and later
 * runs) shares them; concurrent generators never see half-written files (write, then rename).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveFfmpegPath } from '../../functions/adapters/ffmpeg-binaries.js';
import type { UploadFailureCode, UploadContentType } from '../../functions/domain/uploads/model.js';

const run = promisify(execFile);

const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
const seconds = '3';
const tone = ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`];
const picture = ['-f', 'lavfi', '-i', `testsrc=size=160x120:rate=15:duration=${seconds}`];
const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** Names in steps are other fixtures' names (checked when the step runs). */
type Step = { ffmpeg: (input: (name: string) => string) => string[] } | { bytes: () => Buffer } | { cut: string; keep: number };

/** How each fixture is made. Steps may use other fixtures (listed before them). */
const recipes = {
  // Video, one per SPEC video type: H.264/AAC, VP8/Opus, H.264/FLAC.
  'video.mp4': { ffmpeg: () => [...picture, ...tone, ...h264, '-c:a', 'aac', '-movflags', '+faststart', '-f', 'mp4'] },
  'video.mov': { ffmpeg: () => [...picture, ...tone, ...h264, '-c:a', 'aac', '-f', 'mov'] },
  'video.webm': {
    ffmpeg: () => [...picture, ...tone, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k', '-c:a', 'libopus', '-f', 'webm'],
  },
  'video.mkv': { ffmpeg: () => [...picture, ...tone, ...h264, '-c:a', 'flac', '-f', 'matroska'] },
  // Audio, covering every SPEC audio type.
  'audio.mp3': { ffmpeg: () => [...tone, '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'] },
  'audio.wav': { ffmpeg: () => [...tone, '-c:a', 'pcm_s16le', '-f', 'wav'] },
  'audio.aiff': { ffmpeg: () => [...tone, '-c:a', 'pcm_s16be', '-f', 'aiff'] },
  'audio.aac': { ffmpeg: () => [...tone, '-c:a', 'aac', '-f', 'adts'] },
  'audio.ogg': { ffmpeg: () => [...tone, '-c:a', 'libvorbis', '-f', 'ogg'] },
  'audio.flac': { ffmpeg: () => [...tone, '-c:a', 'flac', '-f', 'flac'] },
  'audio.m4a': { ffmpeg: () => [...tone, '-c:a', 'aac', '-f', 'ipod'] },
  'audio.opus': { ffmpeg: () => [...tone, '-c:a', 'libopus', '-f', 'opus'] },
  'audio.webm': { ffmpeg: () => [...tone, '-c:a', 'libopus', '-f', 'webm'] },
  // Special cases.
  'cover.png': { ffmpeg: () => ['-f', 'lavfi', '-i', 'color=c=red:size=64x64', '-frames:v', '1', '-f', 'image2', '-c:v', 'png'] },
  'cover-art.mp3': {
    ffmpeg: (input) => [
      '-i',
      input('audio.mp3'),
      '-i',
      input('cover.png'),
      '-map',
      '0',
      '-map',
      '1',
      '-c',
      'copy',
      '-id3v2_version',
      '3',
      '-disposition:v',
      'attached_pic',
      '-f',
      'mp3',
    ],
  },
  'cover-art.m4a': {
    ffmpeg: (input) => [
      '-i',
      input('audio.m4a'),
      '-i',
      input('cover.png'),
      '-map',
      '0',
      '-map',
      '1',
      '-c',
      'copy',
      '-disposition:v',
      'attached_pic',
      '-f',
      'ipod',
    ],
  },
  'cover-only.m4a': { ffmpeg: (input) => ['-i', input('cover.png'), '-c', 'copy', '-disposition:v', 'attached_pic', '-f', 'mp4'] },
  'silence.mp3': { ffmpeg: () => ['-f', 'lavfi', '-i', `anullsrc=r=44100:cl=mono`, '-t', seconds, '-c:a', 'libmp3lame', '-f', 'mp3'] },
  'random.bin': { bytes: () => randomBytes(64 * 1024) },
  // MP4 with its index (moov) first, cut: it still probes, but its last samples are missing.
  'truncated-faststart.mp4': { cut: 'video.mp4', keep: 0.6 },
  // MP4 with the index at the end, cut: there is no index at all.
  'video-moov-last.mp4': { ffmpeg: () => [...picture, ...tone, ...h264, '-c:a', 'aac', '-f', 'mp4'] },
  'truncated-moov-missing.mp4': { cut: 'video-moov-last.mp4', keep: 0.6 },
  // MP3 whose Xing header declares more frames than remain.
  'truncated.mp3': { cut: 'audio.mp3', keep: 0.5 },
  'truncated.mkv': { cut: 'video.mkv', keep: 0.5 },
  // An HLS playlist pointing at loopback: must be refused unread (no nested fetches).
  'playlist.m3u8': { bytes: () => Buffer.from('#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:9/segment.ts\n#EXT-X-ENDLIST\n') },
  // 121.7 minutes of quiet 8 kbit/s MP3 (about 7 MB), by stream-copying one minute in a loop.
  'minute.mp3': { ffmpeg: () => ['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '60', '-c:a', 'libmp3lame', '-b:a', '8k', '-f', 'mp3'] },
  'long.mp3': { ffmpeg: (input) => ['-stream_loop', '-1', '-i', input('minute.mp3'), '-t', '7300', '-c', 'copy', '-f', 'mp3'] },
  // Over 5 MiB (S3's smallest part), for the multipart path: 40 s of 44.1 kHz stereo PCM.
  'multipart.wav': { ffmpeg: () => ['-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=44100:duration=40', '-ac', '2', '-c:a', 'pcm_s16le', '-f', 'wav'] },
} satisfies Record<string, Step>;

export type FixtureName = keyof typeof recipes;
export const fixtureNames = Object.keys(recipes) as FixtureName[];

/** A real file for every SPEC content type; each must complete `ready`. */
export const fixtureForContentType: Record<UploadContentType, FixtureName> = {
  'video/mp4': 'video.mp4',
  'video/quicktime': 'video.mov',
  'video/webm': 'video.webm',
  'video/x-matroska': 'video.mkv',
  'audio/mpeg': 'audio.mp3',
  'audio/mp3': 'audio.mp3',
  'audio/wav': 'audio.wav',
  'audio/x-wav': 'audio.wav',
  'audio/aiff': 'audio.aiff',
  'audio/aac': 'audio.aac',
  'audio/ogg': 'audio.ogg',
  'audio/flac': 'audio.flac',
  'audio/x-flac': 'audio.flac',
  'audio/mp4': 'audio.m4a',
  'audio/x-m4a': 'audio.m4a',
  'audio/webm': 'audio.webm',
  'audio/opus': 'audio.opus',
};

/** Files that must complete `ready` under the declared type, beyond one per type. */
export const acceptedSpecials: { fixture: FixtureName; contentType: UploadContentType; why: string }[] = [
  { fixture: 'cover-art.mp3', contentType: 'audio/mpeg', why: 'MP3 cover art is an attached picture, accepted and never decoded' },
  { fixture: 'cover-art.m4a', contentType: 'audio/x-m4a', why: 'M4A cover art is an attached picture, accepted and never decoded' },
  { fixture: 'silence.mp3', contentType: 'audio/mpeg', why: 'silence is valid audio' },
];

/** Files that must fail closed, each with its own error code. */
export const rejectedInputs: { fixture: FixtureName; contentType: UploadContentType; code: UploadFailureCode }[] = [
  { fixture: 'random.bin', contentType: 'audio/mpeg', code: 'unreadable_media' },
  { fixture: 'cover.png', contentType: 'audio/mpeg', code: 'unreadable_media' },
  { fixture: 'playlist.m3u8', contentType: 'video/mp4', code: 'unreadable_media' },
  { fixture: 'truncated-faststart.mp4', contentType: 'video/mp4', code: 'truncated_media' },
  { fixture: 'truncated-moov-missing.mp4', contentType: 'video/mp4', code: 'truncated_media' },
  { fixture: 'truncated.mp3', contentType: 'audio/mpeg', code: 'truncated_media' },
  { fixture: 'truncated.mkv', contentType: 'video/x-matroska', code: 'truncated_media' },
  { fixture: 'video.mp4', contentType: 'audio/mp4', code: 'unexpected_video_stream' },
  { fixture: 'video.webm', contentType: 'audio/webm', code: 'unexpected_video_stream' },
  { fixture: 'audio.mp3', contentType: 'video/mp4', code: 'no_video_stream' },
  { fixture: 'cover-art.m4a', contentType: 'video/mp4', code: 'no_video_stream' },
  { fixture: 'cover-only.m4a', contentType: 'audio/mp4', code: 'no_audio_stream' },
  { fixture: 'long.mp3', contentType: 'audio/mpeg', code: 'duration_exceeds_limit' },
];

const cacheKey = createHash('sha256')
  .update(JSON.stringify(recipes, (_key, value: unknown) => (typeof value === 'function' ? String(value) : value)))
  .digest('hex')
  .slice(0, 16);
export const fixtureDir = join(tmpdir(), 'media-scanner-fixtures', cacheKey);

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

const made = new Map<FixtureName, Promise<string>>();

function known(name: string): FixtureName {
  if (!(name in recipes)) throw new Error(`No fixture recipe named ${name}`);
  return name as FixtureName;
}

/** The path of a fixture, generating it (and what it is made from) on first use. */
export function fixture(name: FixtureName): Promise<string> {
  let path = made.get(name);
  if (!path) {
    path = generate(name);
    made.set(name, path);
  }
  return path;
}

async function generate(name: FixtureName): Promise<string> {
  const path = join(fixtureDir, name);
  if (await exists(path)) return path;
  await mkdir(fixtureDir, { recursive: true });
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  const step: Step = recipes[name];
  if ('bytes' in step) {
    await writeFile(partial, step.bytes());
  } else if ('cut' in step) {
    const source = await readFile(await fixture(known(step.cut)));
    await writeFile(partial, source.subarray(0, Math.floor(source.length * step.keep)));
  } else {
    const inputs = new Map<string, string>();
    // Resolve every fixture this recipe reads before building its command line.
    const wanted: string[] = [];
    step.ffmpeg((input) => {
      wanted.push(input);
      return input;
    });
    for (const input of wanted) inputs.set(input, await fixture(known(input)));
    const args = step.ffmpeg((input) => inputs.get(input) ?? input);
    await run(resolveFfmpegPath(process.env.FFMPEG_PATH), [...quiet, ...args, partial], { maxBuffer: 16 * 1024 * 1024 });
  }
  await rename(partial, path);
  return path;
}

/** Generates every fixture (a few seconds the first time, instant from the cache afterwards). */
export async function allFixtures(): Promise<Record<FixtureName, string>> {
  const entries = await Promise.all(fixtureNames.map(async (name) => [name, await fixture(name)] as const));
  return Object.fromEntries(entries) as Record<FixtureName, string>;
}
