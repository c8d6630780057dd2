/**
 * One-off analyses (issue 11): how acquisition compares with a plain download of the same file
 * from the same loopback server (goal: <= 1.2), and the wall time of a whole 10-minute one-off
 * analysis (preflight in the POST, acquisition, signals, answer) against a bare ffmpeg decode.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { resolveFfmpegPath, resolveFfprobePath } from '../../functions/adapters/ffmpeg-binaries.js';
import { ffprobeInspector, spawnFfprobe } from '../../functions/adapters/media/ffprobe-inspector.js';
import { s3FileWriter } from '../../functions/adapters/media/s3-file-writer.js';
import { createOutboundClient } from '../../functions/adapters/outbound/outbound-client.js';
import { createSourceGateway } from '../../functions/adapters/sources/source-gateway.js';
import { ytDlp } from '../../functions/adapters/sources/yt-dlp.js';
import { readRunningHost } from '../../functions/local/host.js';
import { longSource } from '../helpers/ground-truth-media.js';
import { startMediaServer } from '../helpers/media-server.js';
import { childEnv, repoRoot, tsxCli } from '../helpers/processes.js';
import { call, pollUntil, round, stopwatch, submit } from './client.js';
import { benchHost } from './host.js';
import { bareDecode, timed } from './signals.js';

export interface OneOffBenchResult {
  sourceSeconds: number;
  sourceMiB: number;
  /** One GET of the file to local disk. */
  plainDownloadSeconds: number;
  /** One GET streamed straight into the bucket: where an acquisition's bytes must end up. */
  plainToBucketSeconds: number;
  acquisitionSeconds: number;
  /** Acquisition / plain download into the bucket (goal <= 1.2): the cost of the checks. */
  acquisitionRatio: number;
  acquisitionVsDiskRatio: number;
  decodeSeconds: number;
  analysisSeconds: number;
  analysisRatio: number;
}

/** The plain download: one GET of the whole file to disk, nothing checked. */
async function plainDownload(url: string, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    get(url, (response) => {
      pipeline(response, createWriteStream(path)).then(resolve, reject);
    }).on('error', reject);
  });
}

/** The plain download into the bucket: the GET's body as the PutObject body, nothing checked. */
async function plainToBucket(url: string, s3: S3Client, bucket: string, size: number): Promise<void> {
  const body = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject));
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'bench/plain.mp4', Body: body, ContentLength: size }));
}

/** The admin CLI against the bench host: trust the loopback media server for its default account. */
async function trustLoopback(dataDir: string): Promise<void> {
  const child = spawn(process.execPath, [tsxCli, 'functions/admin/cli.ts', 'accounts', 'trust-host', '127.0.0.1'], {
    cwd: repoRoot,
    env: childEnv({ LOCAL_DATA_DIR: dataDir }),
    stdio: 'ignore',
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`trust-host exited with ${code}`);
}

export async function benchOneOff(options: { minutes?: number } = {}): Promise<OneOffBenchResult> {
  const minutes = options.minutes ?? 10;
  const file = await longSource({ minutes });
  const { size } = await stat(file);
  const decode = await timed(() => bareDecode(file));
  const server = await startMediaServer();
  const scratch = await mkdtemp(join(tmpdir(), 'mss-bench-one-off-'));
  const host = await benchHost({ env: { LOCAL_ALLOW_LOOPBACK_TARGETS: '1' } });
  try {
    const url = server.add(file);
    const plain = await stopwatch(() => plainDownload(url, join(scratch, 'plain.mp4')));

    // Acquisition as the AcquireSource step runs it (fetch through the outbound module, verify,
    // store in the bucket), into the bench host's own media store.
    const running = await readRunningHost(host.dataDir);
    if (!running) throw new Error('the bench host wrote no running.json');
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: running.s3_endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const gateway = createSourceGateway({
      outbound: createOutboundClient({ allowLoopback: true }),
      inspector: ffprobeInspector(
        spawnFfprobe(() => resolveFfprobePath(undefined)),
        60_000,
      ),
      store: s3FileWriter(s3, running.bucket, { partSizeBytes: 512 * 1024 ** 2 }),
      ytDlp: ytDlp({ ffmpegPath: () => resolveFfmpegPath(undefined) }),
      // Trusted-host sources only here: no provider page reaches the resolver.
      providerPages: { describe: () => Promise.reject(new Error('no provider pages in this bench')) },
    });
    const toBucket = await stopwatch(() => plainToBucket(url, s3, running.bucket, size));
    const acquisition = await stopwatch(() =>
      gateway.acquire(new URL(url), { kind: 'trusted_host', host: '127.0.0.1' }, { objectKey: 'bench/acquired.mp4', maxBytes: size + 1 }),
    );

    await trustLoopback(host.dataDir);
    const analysis = await stopwatch(async () => {
      // As an integrator does: preflight, then the whole source as the window.
      const source_url = server.add(file);
      const { duration_ms } = await call<{ duration_ms: number }>(host, 'POST', '/v1/sources/preflight', { source_url });
      const submitted = await submit<{ analysis_id: string }>(host, '/v1/analyses', {
        source_url,
        analysis_start_seconds: 0,
        analysis_end_seconds: duration_ms / 1000,
        what_to_find: 'scene changes and loud bursts',
      });
      await pollUntil(
        () => call<{ status: string }>(host, 'GET', `/v1/analyses/${submitted.analysis_id}`),
        ({ status }) => {
          if (status === 'failed' || status === 'canceled') throw new Error(`analysis ${submitted.analysis_id} ${status}`);
          return status === 'completed';
        },
      );
    });
    return {
      sourceSeconds: minutes * 60,
      sourceMiB: round(size / 1024 ** 2),
      plainDownloadSeconds: round(plain.ms / 1000),
      plainToBucketSeconds: round(toBucket.ms / 1000),
      acquisitionSeconds: round(acquisition.ms / 1000),
      acquisitionRatio: round(acquisition.ms / toBucket.ms),
      acquisitionVsDiskRatio: round(acquisition.ms / plain.ms),
      decodeSeconds: round(decode.wall),
      analysisSeconds: round(analysis.ms / 1000),
      analysisRatio: round(analysis.ms / 1000 / decode.wall),
    };
  } finally {
    await host.stop();
    await server.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
