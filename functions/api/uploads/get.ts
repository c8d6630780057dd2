import { getUpload } from '../../domain/uploads/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../resources/uploads/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { uploadIdParams } from '../../resources/uploads/request.js';
import { uploadStore } from '../../composition/uploads.js';

export const handler = httpHandler(
  'api/uploads/get',
  { params: uploadIdParams, query: noQuerySchema },
  () => ({ uploads: uploadStore() }),
  async ({ accountId, params }, deps) => ({
    status: 200,
    body: presentUpload(await getUpload(deps, accountId, params.upload_id), new Date()),
  }),
);
