import { createRequire } from 'node:module';

/**
 * Where the ffmpeg and ffprobe binaries are. A configured path (FFMPEG_PATH / FFPROBE_PATH,
 * read by the caller's config) wins; otherwise the binaries the @ffmpeg-installer /
 * @ffprobe-installer dev packages ship. Those packages are required lazily, so a deployment that
 * configures paths (the Lambda layer, the Fargate image) needs neither package.
 */
const require = createRequire(import.meta.url);

function installerPath(packageName: string): string {
  const installed = require(packageName) as { path: string };
  return installed.path;
}

export function resolveFfmpegPath(configured?: string): string {
  return configured || installerPath('@ffmpeg-installer/ffmpeg');
}

export function resolveFfprobePath(configured?: string): string {
  return configured || installerPath('@ffprobe-installer/ffprobe');
}
