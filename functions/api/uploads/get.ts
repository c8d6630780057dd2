import { getUpload } from '../../domain/uploads.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../http/presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { uploadIdParams } from '../../schemas/upload.js';
import { uploadDeps } from './deps.js';

export const handler = httpHandler(
  'api/uploads/get',
  { params: uploadIdParams, query: noQuerySchema },
  async ({ accountId, params }, services) => ({
    status: 200,
    body: presentUpload(await getUpload(uploadDeps(services), accountId, params.upload_id), new Date()),
  }),
);
