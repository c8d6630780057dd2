import { notFound } from '../errors.js';
import { assertRunnableUpload, uploadStatusAt } from './status.js';
import type { UploadDeps } from './ports.js';
import type { UploadContentType, UploadRecord, UploadStatus } from './model.js';
import type { Page, PageRequest } from '../pages.js';

export async function getUpload(deps: Pick<UploadDeps, 'uploads'>, accountId: string, uploadId: string): Promise<UploadRecord> {
  const upload = await deps.uploads.get(accountId, uploadId);
  if (!upload) throw notFound('upload');
  return upload;
}

/** How long the console's player may read an upload's private source through one signed URL. */
const MEDIA_URL_SECONDS = 300;

/** A signed GET of a ready upload's private source (the console's player): 404 for another account's, 400 upload_not_ready before it is ready. */
export async function signUploadMedia(
  deps: Pick<UploadDeps, 'uploads' | 'media'>,
  accountId: string,
  uploadId: string,
  now = new Date(),
): Promise<{ url: string; expiresAt: Date; contentType: UploadContentType }> {
  const upload = await getUpload(deps, accountId, uploadId);
  assertRunnableUpload(upload, now);
  const url = await deps.media.signGet(upload.objectKey, MEDIA_URL_SECONDS);
  return { url, expiresAt: new Date(now.getTime() + MEDIA_URL_SECONDS * 1000), contentType: upload.contentType };
}

export function listUploads(
  deps: Pick<UploadDeps, 'uploads'>,
  accountId: string,
  page: PageRequest,
  status: UploadStatus | undefined,
  now = new Date(),
): Promise<Page<UploadRecord>> {
  return deps.uploads.list(accountId, page, status ? (upload) => uploadStatusAt(upload, now) === status : undefined);
}
