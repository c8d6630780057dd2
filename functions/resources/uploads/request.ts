import * as z from '../../shared/zod.js';
import { idParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';
import { uploadContentTypes, uploadStatuses } from '../../domain/uploads/model.js';

// C0 and C1 control characters and DEL; a filename is a label, never a path.
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

const filenameSchema = z.string().check(
  z.minLength(1, 'A filename is required.'),
  z.refine((name) => [...name].length <= 255, { message: 'At most 255 characters.' }),
  z.refine((name) => !/[/\\]/.test(name), { message: 'A filename must not contain path separators ("/" or "\\").' }),
  z.refine((name) => !controlCharacters.test(name), { message: 'A filename must not contain control characters.' }),
  z.refine((name) => name !== '.' && name !== '..', { message: 'A filename must name a file.' }),
);

/** POST /v1/uploads body. Size against the account's limit is checked in domain/uploads/create.ts. */
export const uploadCreateSchema = z.strictObject({
  filename: filenameSchema,
  content_type: z.enum(uploadContentTypes, {
    error: `Must be exactly one of: ${uploadContentTypes.join(', ')}.`,
  }),
  size_bytes: z.int('Must be an integer number of bytes.').check(z.positive('Must be greater than 0.')),
});

export const uploadIdParams = z.strictObject({ upload_id: idParam });

export const uploadListQuerySchema = z.extend(listQuerySchema, {
  status: z.optional(z.enum(uploadStatuses)),
});
