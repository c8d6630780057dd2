import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A source copied to local disk, ready to probe and store. */
export interface DownloadedFile {
  path: string;
  sizeBytes: number;
  contentType: string;
  title: string | null;
}

/** Runs `work` in a fresh private directory under `root` and removes it, whatever happens. */
export async function inTempDir<T>(root: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(root, 'source-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes a body to `path` (the body's own bounds apply) and returns its size. */
export async function saveBody(body: Readable, path: string): Promise<number> {
  await pipeline(body, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
  return (await stat(path)).size;
}
