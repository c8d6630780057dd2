import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type S3rver from 's3rver';

/**
 * s3rver 3.7 stores multipart parts but answers neither ListParts (GET ?uploadId) nor
 * AbortMultipartUpload (DELETE ?uploadId), and fails CompleteMultipartUpload of an unknown upload
 * with a 500 instead of NoSuchUpload. Upload completion lists the parts server-side (the client
 * never sends ETags), so the local host adds these three answers in front of s3rver's router,
 * reading s3rver's own upload directory. Only loopback clients of the local host ever see this.
 */
interface Context {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body: unknown;
}
type Middleware = (ctx: Context, next: () => Promise<void>) => Promise<void>;
interface KoaInternals {
  middleware: Middleware[];
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
}

const xml = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

function noSuchUpload(ctx: Context, uploadId: string): void {
  ctx.status = 404;
  ctx.type = 'application/xml';
  ctx.body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>NoSuchUpload</Code><Message>The specified multipart upload does not exist.</Message><UploadId>${xml(uploadId)}</UploadId></Error>`;
}

export function addMultipartListing(server: S3rver): void {
  const koa = server as unknown as KoaInternals;
  const handle: Middleware = async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (typeof uploadId !== 'string' || ctx.query.partNumber !== undefined || !['GET', 'DELETE', 'POST'].includes(ctx.method)) {
      return next();
    }
    const [bucket, ...keyParts] = ctx.path.split('/').filter(Boolean).map(decodeURIComponent);
    const key = keyParts.join('/');
    if (!bucket || !key || !/^[0-9a-f]+$/.test(uploadId)) return next();
    const directory = join(koa.store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    const storedKey = await readFile(join(directory, 'key'), 'utf8').catch(() => undefined);
    if (storedKey !== key) return noSuchUpload(ctx, uploadId);
    if (ctx.method === 'POST') return next();
    if (ctx.method === 'DELETE') {
      await rm(directory, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = null;
      return;
    }

    const numbers = (await readdir(directory))
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
    const parts = await Promise.all(
      numbers.map(async (number) => {
        const [info, md5] = await Promise.all([stat(join(directory, String(number))), readFile(join(directory, `${number}.md5`), 'utf8')]);
        return (
          `<Part><PartNumber>${number}</PartNumber><LastModified>${info.mtime.toISOString()}</LastModified>` +
          `<ETag>"${xml(md5.trim())}"</ETag><Size>${info.size}</Size></Part>`
        );
      }),
    );
    ctx.status = 200;
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Bucket>${xml(bucket)}</Bucket><Key>${xml(key)}</Key><UploadId>${xml(uploadId)}</UploadId>` +
      `<PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>${numbers.at(-1) ?? 0}</NextPartNumberMarker>` +
      `<MaxParts>10000</MaxParts><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`;
  };
  // Koa composes its middleware when the server starts, so this runs before s3rver's router.
  koa.middleware.unshift(handle);
}
