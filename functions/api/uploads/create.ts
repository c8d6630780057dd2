import { requireAccount } from '../../domain/accounts.js';
import { createUpload } from '../../domain/uploads.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../http/presenters.js';
import { uploadCreateSchema } from '../../schemas/upload.js';
import { uploadDeps } from './deps.js';

/** POST /v1/uploads: the record with its signed target(s), returned this once (SPEC: persist it at once). */
export const handler = httpHandler('api/uploads/create', { body: uploadCreateSchema }, async ({ accountId, body }, services) => {
  const account = await requireAccount(services.accounts, accountId);
  const now = new Date();
  const { upload, targets } = await createUpload(uploadDeps(services), account, body, now);
  return { status: 201, body: presentUpload(upload, now, targets) };
});
