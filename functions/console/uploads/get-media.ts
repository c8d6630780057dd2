import { signUploadMedia } from '../../domain/uploads/uploads.js';
import { httpHandler } from '../../http/handler.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { uploadIdParams } from '../../resources/uploads/request.js';
import { consoleMedia } from '../../composition/console.js';

/** GET /console/api/uploads/{upload_id}/media: a 5-minute signed GET of the private source, for the console's player. */
export const handler = httpHandler(
  'console/uploads/get-media',
  { params: uploadIdParams, query: noQuerySchema },
  consoleMedia,
  async ({ accountId, params }, deps) => {
    const { url, expiresAt, contentType } = await signUploadMedia(deps, accountId, params.upload_id);
    return { status: 200, body: { url, expires_at: expiresAt.toISOString(), content_type: contentType } };
  },
);
