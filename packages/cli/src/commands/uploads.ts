import { basename } from 'node:path';
import { Option } from 'commander';
import { unwrap, type MediaScannerClient, type Upload, type UploadContentType } from '../../../client/src/index.js';
import { bytes, FailedWork, keyValues, seconds, table, type Printer } from '../output.js';
import { uploadDetail, withBar } from '../progress.js';
import type { Cli } from './cli.js';

export const contentTypeOption = () => new Option('--content-type <type>', 'when the extension does not tell (e.g. video/mp4)');

const uploadText = (upload: Upload) =>
  keyValues({
    upload_id: upload.upload_id,
    status: upload.status,
    media_kind: upload.media_kind,
    filename: upload.filename,
    size: bytes(upload.size_bytes),
    duration: seconds(upload.duration_ms),
    error: upload.error ? `${upload.error.code}: ${upload.error.message}` : null,
  });

/** Uploads a file with a progress bar; exit 4 unless it ends ready. */
export async function upload(api: MediaScannerClient, out: Printer, file: string, contentType?: UploadContentType): Promise<Upload> {
  out.note(`Uploading ${basename(file)}…`);
  const done = await withBar('upload', !out.json, (bar) =>
    api.uploadFile(
      { path: file },
      {
        ...(contentType ? { contentType } : {}),
        onProgress: ({ sentBytes, totalBytes }) => bar.update(sentBytes / totalBytes, uploadDetail(sentBytes, totalBytes)),
      },
    ),
  );
  if (done.status !== 'ready')
    throw new FailedWork(`Upload ${done.upload_id} is ${done.status}: ${done.error?.code ?? ''} ${done.error?.message ?? ''}`.trim(), done);
  return done;
}

/** `uploads create|list|get`, and `upload` (the same as `uploads create`). */
export function uploadsCommands(cli: Cli): void {
  const uploads = cli.root.command('uploads').description('private video and audio sources');
  const uploadAction = cli.run(async ({ api, out }, file: string, options: { contentType?: UploadContentType }) => {
    const done = await upload(api, out, file, options.contentType);
    out.result(done, () => uploadText(done));
  });
  cli.root
    .command('upload <file>')
    .description('upload a file: declare, PUT with a progress bar, complete')
    .addOption(contentTypeOption())
    .action(uploadAction);
  uploads.command('create <file>').description('the same as `upload`').addOption(contentTypeOption()).action(uploadAction);
  uploads
    .command('list')
    .addOption(new Option('--status <status>').choices(['pending', 'ready', 'failed', 'expired', 'deleted']))
    .option('--limit <n>', 'page size', '20')
    .action(
      cli.run(async ({ api, out }, options: { status?: 'pending' | 'ready' | 'failed' | 'expired' | 'deleted'; limit: string }) => {
        const page = await unwrap(
          api.api.GET('/v1/uploads', { params: { query: { limit: options.limit, ...(options.status ? { status: options.status } : {}) } } }),
        );
        out.result(page, () =>
          table(
            page.data.map((u) => ({ ...u, size: bytes(u.size_bytes) })),
            ['upload_id', 'status', 'media_kind', 'size', 'filename', 'created_at'],
          ),
        );
      }),
    );
  cli.byId(
    uploads,
    'get <upload_id>',
    'an upload',
    ({ api }, id) => unwrap(api.api.GET('/v1/uploads/{upload_id}', { params: { path: { upload_id: id } } })),
    uploadText,
  );
}
