/**
 * Test support for the source gateway: a loopback media server, the gateway as the service builds
 * it (real outbound client, real ffprobe inspector) and an S3 client whose PutObject keeps the bytes.
 */
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { resolveFfmpegPath, resolveFfprobePath } from '../../../../functions/adapters/ffmpeg-binaries.js';
import { ffprobeInspector, spawnFfprobe } from '../../../../functions/adapters/media/ffprobe-inspector.js';
import { s3FileWriter } from '../../../../functions/adapters/media/s3-file-writer.js';
import { createOutboundClient } from '../../../../functions/adapters/outbound/outbound-client.js';
import type { DnsResolver } from '../../../../functions/adapters/outbound/resolver.js';
import { localPython, processProviderResolver } from '../../../../functions/adapters/sources/process-provider-resolver.js';
import { providerPageResolver } from '../../../../functions/adapters/sources/provider-resolution.js';
import { createSourceGateway } from '../../../../functions/adapters/sources/source-gateway.js';
import { ytDlp } from '../../../../functions/adapters/sources/yt-dlp.js';
import { lambdaContractOf, units } from '../../../../functions/runtime/contracts.js';
import { ApiError } from '../../../../functions/domain/errors.js';
import { startServer, type TestServer } from '../outbound/support.js';

export const fakeYtDlpPath = fileURLToPath(new URL('../../../helpers/fake-yt-dlp.js', import.meta.url));
/** The provider-resolver function's handler, as the local host runs it. */
export const resolverContract = lambdaContractOf(units.providerResolver);
export const resolverHandlerPath = fileURLToPath(new URL(`../../../../functions/${resolverContract.module}.py`, import.meta.url));

/** Provider pages as the local host resolves them: the resolver's handler as a child process, with `ytDlpPath` as YT_DLP_PATH. */
export const localProviderPages = (ytDlpPath: string | undefined, timeoutSeconds = resolverContract.timeoutSeconds) =>
  providerPageResolver(processProviderResolver({ handlerPath: resolverHandlerPath, timeoutSeconds, python: localPython(), ytDlpPath }));

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Every object PutObject received, with its bytes (read from the streamed Body). */
export function capturingS3() {
  const s3 = new S3Client({ region: 'us-east-1' });
  const mock = mockClient(s3);
  const objects = new Map<string, { bytes: Buffer; input: PutObjectCommand['input'] }>();
  mock.on(PutObjectCommand).callsFake(async (input: PutObjectCommand['input']) => {
    const chunks: Buffer[] = [];
    for await (const chunk of input.Body as Readable) chunks.push(chunk as Buffer);
    objects.set(input.Key ?? '', { bytes: Buffer.concat(chunks), input });
    return {};
  });
  mock.on(DeleteObjectCommand).callsFake((input: DeleteObjectCommand['input']) => {
    objects.delete(input.Key ?? '');
    return {};
  });
  return { s3, mock, objects };
}

export interface GatewayFixture {
  tempRoot: string;
  objects: ReturnType<typeof capturingS3>['objects'];
  gateway: ReturnType<typeof createSourceGateway>;
  /** What is left under tempRoot: every acquisition and preflight must leave nothing. */
  leftovers(): Promise<string[]>;
  /** Removes tempRoot. */
  dispose(): Promise<void>;
}

export async function gatewayFixture(
  options: { resolver?: DnsResolver; ytDlpPath?: string; searchPath?: string; fallbackMaxBytes?: number } = {},
): Promise<GatewayFixture> {
  const tempRoot = await mkdtemp(join(tmpdir(), 'sources-test-'));
  const { s3, objects } = capturingS3();
  const gateway = createSourceGateway({
    outbound: createOutboundClient({ allowLoopback: true, resolver: options.resolver }),
    inspector: ffprobeInspector(
      spawnFfprobe(() => resolveFfprobePath(process.env.FFPROBE_PATH)),
      30_000,
    ),
    store: s3FileWriter(s3, 'media-bucket'),
    providerPages: localProviderPages(options.ytDlpPath),
    ytDlp: ytDlp({ binaryPath: options.ytDlpPath, searchPath: options.searchPath, ffmpegPath: () => resolveFfmpegPath(process.env.FFMPEG_PATH) }),
    tempRoot,
    fallbackMaxBytes: options.fallbackMaxBytes,
  });
  return { tempRoot, objects, gateway, leftovers: () => readdir(tempRoot), dispose: () => rm(tempRoot, { recursive: true, force: true }) };
}

/** The ApiError a promise rejects with (anything else fails the test). */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

/**
 * Serves files by name: `/range/<name>` with Range support, `/plain/<name>` ignoring Range,
 * `/chunked/<name>` without a length; plus redirects and failures.
 */
export async function mediaServer(files: Record<string, string>): Promise<TestServer> {
  const contents = new Map<string, Buffer>();
  for (const [name, path] of Object.entries(files)) contents.set(name, await readFile(path));
  return startServer((request, response) => {
    const [, mode = '', name = ''] = (request.url ?? '').split('?')[0]?.split('/') ?? [];
    const body = contents.get(name);
    switch (mode) {
      case 'range': {
        if (!body) return void response.writeHead(404).end();
        const match = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
        if (!match) return void response.writeHead(200, { 'content-length': String(body.length), 'content-type': 'video/mp4' }).end(body);
        const start = Number(match[1]);
        const end = match[2] ? Math.min(Number(match[2]), body.length - 1) : body.length - 1;
        response.writeHead(206, {
          'content-range': `bytes ${start}-${end}/${body.length}`,
          'content-length': String(end - start + 1),
          'content-type': 'video/mp4',
        });
        return void response.end(body.subarray(start, end + 1));
      }
      case 'plain':
        if (!body) return void response.writeHead(404).end();
        return void response
          .writeHead(200, { 'content-length': String(body.length), 'content-type': 'video/mp4', 'content-disposition': `attachment; filename="${name}"` })
          .end(body);
      case 'chunked':
        if (!body) return void response.writeHead(404).end();
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.write(body.subarray(0, 1000));
        return void response.end(body.subarray(1000));
      case 'redirect':
        return void response.writeHead(302, { location: `/range/${name}` }).end();
      case 'redirect-private':
        return void response.writeHead(302, { location: 'http://10.0.0.1/clip.mp4' }).end();
      case 'html':
        return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>Sign in to view this file</html>');
      default:
        return void response.writeHead(404).end();
    }
  });
}
