import { notFound } from '../errors.js';
import { uploadStatusAt } from './status.js';
import type { UploadDeps } from './ports.js';
import type { UploadRecord, UploadStatus } from './model.js';
import type { Page, PageRequest } from '../pages.js';

export async function getUpload(deps: Pick<UploadDeps, 'uploads'>, accountId: string, uploadId: string): Promise<UploadRecord> {
  const upload = await deps.uploads.get(accountId, uploadId);
  if (!upload) throw notFound('upload');
  return upload;
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
