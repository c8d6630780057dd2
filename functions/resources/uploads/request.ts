import * as z from '../../shared/zod.js';
import { idParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';

/** SPEC "Upload flow": the only content types an upload may declare, matched exactly. */
export const videoContentTypes = ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska'] as const;
export const audioContentTypes = [
  'audio/mpeg',
  'audio/mp3',
  'audio/wav',
  'audio/x-wav',
  'audio/aiff',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
  'audio/x-flac',
  'audio/mp4',
  'audio/x-m4a',
  'audio/webm',
  'audio/opus',
] as const;
export const uploadContentTypes = [...videoContentTypes, ...audioContentTypes] as const;
export type UploadContentType = (typeof uploadContentTypes)[number];
export type MediaKind = 'video' | 'audio';

export const mediaKindOf = (contentType: UploadContentType): MediaKind =>
  (videoContentTypes as readonly string[]).includes(contentType) ? 'video' : 'audio';

/** What a reader sees: `expired` and `deleted` are derived from the stored state and the clock. */
export const uploadStatuses = ['pending', 'ready', 'failed', 'expired', 'deleted'] as const;
export type UploadStatus = (typeof uploadStatuses)[number];

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

/** POST /v1/uploads body. Size against the account's limit is checked in domain/uploads.ts. */
export const uploadCreateSchema = z.strictObject({
  filename: filenameSchema,
  content_type: z.enum(uploadContentTypes, {
    error: `Must be exactly one of: ${uploadContentTypes.join(', ')}.`,
  }),
  size_bytes: z.int('Must be an integer number of bytes.').check(z.positive('Must be greater than 0.')),
});
export type UploadCreate = z.infer<typeof uploadCreateSchema>;

export const uploadIdParams = z.strictObject({ upload_id: idParam });

export const uploadListQuerySchema = z.extend(listQuerySchema, {
  status: z.optional(z.enum(uploadStatuses)),
});
export type UploadListQuery = z.infer<typeof uploadListQuerySchema>;
