/**
 * Records real ffprobe output for the probe classifier's unit tests:
 *   npx tsx test/unit/uploads/probe-samples/record.ts
 * Each fixture is stored in a throwaway s3rver and inspected through a signed GET URL exactly as
 * completion does; every ffprobe run (stage, arguments, exit code, stdout, stderr) is written to
 * <fixture>--<kind>.json with the URL replaced by {url}. Re-run after changing the probe stages.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { s3MediaStore } from '../../../../functions/adapters/media/s3-media-store.js';
import { ffprobeInspector, spawnFfprobe, type FfprobeRunner } from '../../../../functions/adapters/media/ffprobe-inspector.js';
import { resolveFfprobePath } from '../../../../functions/adapters/ffmpeg-binaries.js';
import { startS3rver } from '../../../../functions/local/stand-ins.js';
import { mediaKindOf } from '../../../../functions/domain/uploads/model.js';
import { sampleCases, URL_PLACEHOLDER, type ProbeSample } from './samples.js';
import { fixture } from '../../../helpers/media-fixtures.js';

const dataDir = await mkdtemp(join(tmpdir(), 'probe-samples-'));
const s3rver = await startS3rver(dataDir);
try {
  const s3 = new S3Client({
    endpoint: s3rver.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await s3.send(new CreateBucketCommand({ Bucket: 'samples' }));
  const media = s3MediaStore(s3, 'samples');
  const spawnRunner = spawnFfprobe(() => resolveFfprobePath(process.env.FFPROBE_PATH));

  for (const sample of sampleCases) {
    const key = `samples/${sample.fixture}`;
    await s3.send(new PutObjectCommand({ Bucket: 'samples', Key: key, Body: await readFile(await fixture(sample.fixture)) }));
    const url = await media.signGet(key, 600);
    const runs: ProbeSample['runs'] = [];
    const recording: FfprobeRunner = async (stage, args, timeoutMs) => {
      const result = await spawnRunner(stage, args, timeoutMs);
      const scrub = (text: string) => text.split(url).join(URL_PLACEHOLDER);
      runs.push({ stage, args: args.map(scrub), exitCode: result.exitCode, stdout: scrub(result.stdout), stderr: scrub(result.stderr) });
      return result;
    };
    const mediaKind = mediaKindOf(sample.contentType);
    const verdict = await ffprobeInspector(recording, 60_000).inspect(url, mediaKind, { maxDurationMs: 120 * 60_000 });
    const record: ProbeSample = { fixture: sample.fixture, contentType: sample.contentType, mediaKind, runs, recordedVerdict: verdict };
    await writeFile(join(import.meta.dirname, `${sample.fixture}--${mediaKind}.json`), `${JSON.stringify(record, null, 1)}\n`);
    console.log(`${sample.fixture} as ${sample.contentType}: ${verdict.ok ? 'ready' : verdict.error.code}`);
  }
  s3.destroy();
} finally {
  await s3rver.stop();
  await rm(dataDir, { recursive: true, force: true });
}
