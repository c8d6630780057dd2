import * as z from '../../shared/zod.js';
import { id, mediaKind, milliseconds, nullableTimestamp, timestamp } from '../common/response.js';
import { uploadContentTypes, uploadStatuses } from '../../domain/uploads/model.js';

const streamSchema = z.object({
  index: z.int().check(z.minimum(0)),
  type: mediaKind,
  codec: z.string(),
  width: z.nullable(z.int()),
  height: z.nullable(z.int()),
  frame_rate: z.nullable(z.number()),
  channels: z.nullable(z.int()),
  sample_rate: z.nullable(z.int()),
  attached_picture: z.boolean().check(z.describe('Cover art: accepted, never decoded.')),
});

export const uploadSchema = z.object({
  object: z.literal('upload'),
  upload_id: id('upload'),
  status: z.enum(uploadStatuses).check(z.describe('Only `ready` can start a run.')),
  media_kind: mediaKind,
  filename: z.string(),
  content_type: z.enum(uploadContentTypes),
  size_bytes: z.int().check(z.minimum(1)),
  upload_method: z.nullable(z.literal('PUT')).check(z.describe('Only in the POST /v1/uploads answer (single-PUT uploads).')),
  upload_url: z.nullable(z.string()).check(z.describe('Signed, time-limited; only in the POST /v1/uploads answer.')),
  upload_headers: z
    .nullable(z.record(z.string(), z.string()))
    .check(z.describe('Send every entry with the bytes; they are part of the signature. `{}` for multipart uploads.')),
  upload_parts: z
    .nullable(z.array(z.object({ part_number: z.int().check(z.minimum(1)), upload_url: z.string(), size_bytes: z.int().check(z.minimum(1)) })))
    .check(z.describe('Over 5 GiB: one PUT per part instead of upload_url; only in the POST /v1/uploads answer.')),
  expires_at: timestamp.check(z.describe('Deadline of the signed target(s); not the retention deadline.')),
  duration_ms: z.nullable(milliseconds),
  streams: z.nullable(z.array(streamSchema)),
  error: z.nullable(z.object({ code: z.string(), message: z.string() })).check(z.describe('Why the upload failed (docs/uploads.md lists the codes).')),
  retention_expires_at: nullableTimestamp,
  ready_at: nullableTimestamp,
  failed_at: nullableTimestamp,
  created_at: timestamp,
  updated_at: timestamp,
});
export type UploadResource = z.infer<typeof uploadSchema>;
