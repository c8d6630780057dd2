import { describe, expect, it } from 'vitest';
import { audioContentTypes, mediaKindOf, videoContentTypes } from '../../../functions/domain/uploads/model.js';
import { uploadCreateSchema, uploadListQuerySchema } from '../../../functions/resources/uploads/request.js';
import { validationError } from '../../../functions/http/responses.js';

const valid = { filename: 'talk.mp3', content_type: 'audio/mpeg', size_bytes: 1000 };
const paramOf = (input: unknown): string | undefined => {
  const result = uploadCreateSchema.safeParse(input);
  return result.success ? undefined : validationError(result.error).param;
};

describe('POST /v1/uploads body', () => {
  it('accepts exactly the 4 video and 13 audio types of SPEC', () => {
    expect(videoContentTypes).toHaveLength(4);
    expect(audioContentTypes).toHaveLength(13);
    for (const type of videoContentTypes) expect(mediaKindOf(type)).toBe('video');
    for (const type of audioContentTypes) expect(mediaKindOf(type)).toBe('audio');
    for (const type of [...videoContentTypes, ...audioContentTypes]) expect(paramOf({ ...valid, content_type: type })).toBeUndefined();
  });

  it.each(['Audio/MPEG', 'audio/mpeg; charset=binary', 'video/avi', 'image/png', 'audio/x-aiff', '', ' audio/mpeg'])('refuses content_type %j', (type) => {
    expect(paramOf({ ...valid, content_type: type })).toBe('content_type');
  });

  it.each([0, -1, 1.5, '1000', null, Number.MAX_SAFE_INTEGER + 2])('refuses size_bytes %j', (size) => {
    expect(paramOf({ ...valid, size_bytes: size })).toBe('size_bytes');
  });

  it.each(['', 'a/b.mp3', 'a\\b.mp3', 'tab\there.mp3', 'nul\u0000.mp3', 'del\u007f.mp3', 'c1\u0085.mp3', '.', '..', 'x'.repeat(256)])(
    'refuses filename %j',
    (name) => {
      expect(paramOf({ ...valid, filename: name })).toBe('filename');
    },
  );

  it('accepts ordinary and non-Latin filenames up to 255 characters', () => {
    for (const name of ['My Talk (final) v2.mp3', 'интервью.m4a', '😀'.repeat(255), '..hidden.mp3', 'x'.repeat(255)]) {
      expect(paramOf({ ...valid, filename: name })).toBeUndefined();
    }
  });

  it('rejects unknown fields and missing fields by name', () => {
    expect(paramOf({ ...valid, bucket: 'x' })).toBe('bucket');
    expect(paramOf({ filename: 'a', content_type: 'audio/mpeg' })).toBe('size_bytes');
  });
});

describe('GET /v1/uploads query', () => {
  it('takes limit, cursor and one status', () => {
    expect(uploadListQuerySchema.parse({ status: 'expired', limit: '5' })).toEqual({ status: 'expired', limit: 5 });
    expect(uploadListQuerySchema.safeParse({ status: 'done' }).success).toBe(false);
    expect(uploadListQuerySchema.safeParse({ sort: 'asc' }).success).toBe(false);
  });
});
