import { requireAccount } from '../../domain/accounts.js';
import { completeUpload } from '../../domain/uploads.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../http/presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { uploadIdParams } from '../../schemas/upload.js';
import { uploadDeps } from './deps.js';

/** POST /v1/uploads/{upload_id}/complete: probe and settle a pending upload; a terminal one is returned as is. */
export const handler = httpHandler(
  'api/uploads/complete',
  { params: uploadIdParams, query: noQuerySchema },
  async ({ accountId, params }, services) => {
    const account = await requireAccount(services.accounts, accountId);
    const upload = await completeUpload(uploadDeps(services), account, params.upload_id);
    return { status: 200, body: presentUpload(upload, new Date()) };
  },
);
