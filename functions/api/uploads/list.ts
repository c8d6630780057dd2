import { listUploads } from '../../domain/uploads.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentUpload } from '../../http/presenters.js';
import { uploadListQuerySchema } from '../../schemas/upload.js';
import { uploadDeps } from './deps.js';

/** GET /v1/uploads: newest first, optionally one status, to reconcile an ambiguous upload (SPEC Upload flow). */
export const handler = httpHandler('api/uploads/list', { query: uploadListQuerySchema }, async ({ accountId, query }, services) => {
  const now = new Date();
  const { status, ...page } = query;
  const uploads = await listUploads(uploadDeps(services), accountId, page, status, now);
  return { status: 200, body: presentList(uploads, (upload) => presentUpload(upload, now)) };
});
