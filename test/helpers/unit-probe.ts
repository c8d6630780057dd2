/**
 * Run inside a unit's sandbox by test/helpers/sandbox.ts (bundled, as `node <bundle> <what> <arg>`):
 * does one thing a unit may try and prints the outcome as one JSON line.
 *   write <dir>     creates a file in <dir>: {"written":true} or {"code":"EROFS"}
 *   yt-dlp <url>    downloads a provider page with the service's yt-dlp adapter into a scratch
 *                   directory under tmpdir(), as source acquisition does: {"bytes":n} or {"code":...}
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ytDlp } from '../../functions/adapters/sources/yt-dlp.js';

const [what, arg = ''] = process.argv.slice(2);

async function probe(): Promise<Record<string, unknown>> {
  if (what === 'write') {
    await writeFile(join(arg, `probe-${process.pid}`), 'x');
    await rm(join(arg, `probe-${process.pid}`));
    return { written: true };
  }
  const dir = await mkdtemp(join(tmpdir(), 'probe-'));
  // As the acquisition task finds them on AWS: yt-dlp on PATH, ffmpeg where the image's FFMPEG_PATH says.
  const file = await ytDlp({ ffmpegPath: () => process.env.FFMPEG_PATH ?? 'ffmpeg' }).download(new URL(arg), dir, 100 * 1024 ** 2);
  return { bytes: file.sizeBytes };
}

console.log(
  JSON.stringify(await probe().catch((error: NodeJS.ErrnoException & { code?: string }) => ({ code: error.code ?? error.name, message: error.message }))),
);
