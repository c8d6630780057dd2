#!/usr/bin/env node
/**
 * A stand-in for yt-dlp (there is no internet here): it takes the options the service passes
 * (an unknown option fails as yt-dlp's parser does), answers `--dump-single-json` with an info
 * dict shaped like yt-dlp 2023.03's (README "OUTPUT TEMPLATE", extractor/common.py), and for a
 * download writes real media to the `-o` path, made with the ffmpeg given by --ffmpeg-location.
 *
 * The video id (`v=` or the last path segment) picks the case:
 *   clip (any other id)  3 s of H.264/AAC video, split into video and audio formats
 *   audio_only           audio formats only
 *   live                 a live stream
 *   playlist             a playlist
 *   unavailable          fails as a private video does
 *   huge                 50 GB: a download is skipped (exit 0, no file) over --max-filesize
 *   flood                a download of unknown size that never ends
 *   slow                 never answers
 */
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import process from 'node:process';
import { setImmediate, setInterval } from 'node:timers';
import { URL } from 'node:url';

const flags = new Set([
  '--ignore-config',
  '--no-playlist',
  '--no-warnings',
  '--no-progress',
  '--no-cache-dir',
  '--dump-single-json',
  '-J',
  '--skip-download',
  '--no-simulate',
  '--no-mtime',
]);
const valued = new Set([
  '--use-extractors',
  '--ies',
  '--socket-timeout',
  '--retries',
  '-R',
  '--match-filters',
  '-f',
  '-S',
  '--format-sort',
  '--merge-output-format',
  '--ffmpeg-location',
  '--max-filesize',
  '-o',
  '--output',
]);

const options = new Map();
const urls = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 1) {
  const arg = argv[i];
  if (arg === '--') {
    urls.push(...argv.slice(i + 1));
    break;
  } else if (flags.has(arg)) options.set(arg, true);
  else if (valued.has(arg)) options.set(arg, argv[(i += 1)]);
  else if (arg.startsWith('-')) fail(2, `Usage: yt-dlp [OPTIONS] URL [URL...]\n\nyt-dlp: error: no such option: ${arg}`);
  else urls.push(arg);
}
if (urls.length !== 1) fail(2, 'Usage: yt-dlp [OPTIONS] URL [URL...]\n\nyt-dlp: error: You must provide at least one URL.');

const url = new URL(urls[0]);
const id = url.searchParams.get('v') ?? url.pathname.split('/').filter(Boolean).at(-1) ?? 'clip';
const dump = options.has('--dump-single-json') || options.has('-J');
const download = !dump || options.has('--no-simulate');

if (id === 'slow') setInterval(() => undefined, 1000);
else if (id === 'unavailable')
  fail(1, `ERROR: [youtube] ${id}: Video unavailable. This video is private; see https://www.youtube.com/watch?v=${id}&sig=SECRET-SIGNATURE`);
else await main();

async function main() {
  const info = describe();
  if (download) {
    const template = options.get('-o') ?? options.get('--output') ?? '%(title)s [%(id)s].%(ext)s';
    const maxBytes = Number(options.get('--max-filesize') ?? Infinity);
    const path = template.replace('%(ext)s', info.ext);
    if (id === 'flood') return flood(`${path}.part`);
    if (info.filesize_approx > maxBytes) {
      // yt-dlp says this on screen only, and --dump-single-json makes it quiet.
      if (!dump) process.stdout.write(`[download] File is larger than max-filesize (${info.filesize_approx} bytes > ${maxBytes} bytes). Aborting.\n`);
    } else {
      makeMedia(options.get('--ffmpeg-location'), path);
      info.requested_downloads = [{ filepath: path, filename: path, ext: info.ext, format_id: info.format_id }];
    }
  }
  if (dump) process.stdout.write(`${JSON.stringify(info)}\n`);
}

function describe() {
  const base = {
    id,
    title: `Fake clip ${id}`,
    fulltitle: `Fake clip ${id}`,
    description: 'A stand-in video description.',
    uploader: 'Stand-in Channel',
    channel: 'Stand-in Channel',
    duration: 3,
    duration_string: '3',
    webpage_url: url.href,
    original_url: url.href,
    webpage_url_domain: url.hostname.replace(/^www\./, ''),
    extractor: 'youtube',
    extractor_key: 'Youtube',
    is_live: id === 'live',
    was_live: false,
    live_status: id === 'live' ? 'is_live' : 'not_live',
    epoch: Math.floor(Date.now() / 1000),
    _type: 'video',
    _version: { version: '2023.03.04', release_git_head: null, repository: 'yt-dlp/yt-dlp' },
  };
  if (id === 'playlist') return { id, title: 'A playlist', _type: 'playlist', entries: [{ ...base, id: 'clip' }], webpage_url: url.href };
  const scale = id === 'huge' ? 500_000 : 1;
  const media = (query) => `https://rr1---sn-fake.googlevideo.com/videoplayback?expire=1&${query}&sig=SECRET-SIGNATURE`;
  const audio = {
    format_id: '139',
    format_note: 'low',
    ext: 'm4a',
    vcodec: 'none',
    acodec: 'mp4a.40.5',
    asr: 22050,
    audio_channels: 2,
    abr: 48.8,
    filesize: 20_000 * scale,
    protocol: 'https',
    url: media('itag=139'),
    resolution: 'audio only',
  };
  const video = {
    format_id: '160',
    format_note: '144p',
    ext: 'mp4',
    vcodec: 'avc1.4d400c',
    acodec: 'none',
    width: 160,
    height: 120,
    fps: 15,
    vbr: 100,
    filesize: 50_000 * scale,
    protocol: 'https',
    url: media('itag=160'),
    resolution: '160x120',
  };
  const combined = {
    format_id: '18',
    format_note: '360p',
    ext: 'mp4',
    vcodec: 'avc1.42001E',
    acodec: 'mp4a.40.2',
    width: 160,
    height: 120,
    fps: 15,
    filesize_approx: 80_000 * scale,
    protocol: 'https',
    url: media('itag=18'),
    resolution: '160x120',
  };
  if (id === 'audio_only') {
    return { ...base, formats: [audio], ...audio, format: '139 - audio only (low)', filesize_approx: audio.filesize };
  }
  return {
    ...base,
    formats: [audio, video, combined],
    requested_formats: [video, audio],
    format_id: '160+139',
    format: '160 - 160x120 (144p)+139 - audio only (low)',
    ext: 'mp4',
    vcodec: video.vcodec,
    acodec: audio.acodec,
    width: 160,
    height: 120,
    fps: 15,
    filesize_approx: video.filesize + audio.filesize,
    protocol: 'https+https',
    resolution: '160x120',
  };
}

function makeMedia(ffmpeg, path) {
  if (!ffmpeg) fail(1, 'ERROR: ffmpeg is not installed; merging is impossible');
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=3'];
  const picture = ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=15:duration=3'];
  const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  const args =
    id === 'audio_only' ? [...tone, '-c:a', 'aac', '-f', 'ipod'] : [...picture, ...tone, ...h264, '-c:a', 'aac', '-movflags', '+faststart', '-f', 'mp4'];
  const made = spawnSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', ...args, path], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (made.status !== 0) fail(1, `ERROR: Postprocessing: ${String(made.stderr).trim()}`);
}

function flood(path) {
  const out = createWriteStream(path);
  const chunk = Buffer.alloc(256 * 1024, 1);
  const write = () => (out.write(chunk) ? setImmediate(write) : out.once('drain', write));
  write();
}

function fail(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}
