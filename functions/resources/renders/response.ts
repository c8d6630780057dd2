import * as z from '../../shared/zod.js';
import { FONTS, FRAMING_MODES, RENDER_FORMATS, aspectRatioIds, captionPresetIds } from '../../domain/renders/presets.js';
import { renderStatuses } from '../../domain/renders/model.js';
import { count, id, milliseconds, nullableTimestamp, terminalErrorSchema, timestamp } from '../common/response.js';

export const renderPresetsSchema = z.object({
  object: z.literal('render_presets'),
  formats: z.array(z.enum(RENDER_FORMATS)),
  aspect_ratios: z
    .array(z.object({ id: z.enum(aspectRatioIds), width: z.nullable(z.int().check(z.minimum(2))), height: z.nullable(z.int().check(z.minimum(2))) }))
    .check(z.describe('Exact output sizes; `original` keeps the source size (null here).')),
  caption_presets: z.array(
    z.object({
      id: z.enum(captionPresetIds),
      name: z.string(),
      font_id: z.enum(FONTS.map((f) => f.id) as [string, ...string[]]),
      font_size: z.int().check(z.describe('Pixels at a 1080-wide output; scales with the width.')),
      text_color: z.string(),
      highlight_color: z.nullable(z.string()).check(z.describe('The colour of the word being spoken; null: no word highlight.')),
      outline_color: z.string(),
      outline_width: z.int(),
      position: z.enum(['lower_third', 'bottom', 'center']),
      max_words_per_line: z.int().check(z.minimum(1)),
      uppercase: z.boolean(),
      word_highlight: z.boolean(),
    }),
  ),
  fonts: z.array(z.object({ id: z.string(), family: z.string(), style: z.string(), license: z.string(), license_url: z.string() })),
  effects: z.array(z.object({ id: z.string(), description: z.string() })),
  framing_modes: z
    .array(z.enum(FRAMING_MODES))
    .check(z.describe('`auto` (default) keeps the subject in frame; `stacked`: left and right halves stacked, portrait outputs only.')),
});
export type RenderPresetsResource = z.infer<typeof renderPresetsSchema>;

const renderAssetSchema = z.object({
  moment_id: id('moment'),
  status: z.enum(['completed', 'failed']),
  url: z
    .nullable(z.string())
    .check(z.describe('Signed, time-limited download URL (GET). Null for a failed asset and in event payloads: GET the render for a fresh one.')),
  url_expires_at: nullableTimestamp,
  content_type: z.literal('video/mp4'),
  width: z.nullable(z.int()),
  height: z.nullable(z.int()),
  duration_ms: z.nullable(milliseconds),
  size_bytes: z.nullable(count),
  captions: z.boolean().check(z.describe('Whether captions were burned in.')),
  error: z.nullable(terminalErrorSchema),
});

export const renderSchema = z.object({
  object: z.literal('render'),
  render_id: id('render'),
  analysis_id: id('analysis'),
  status: z.enum(renderStatuses).check(z.describe('completed when at least one asset rendered; failed when none did.')),
  moment_ids: z.array(id('moment')),
  render: z.object({
    output: z.object({ format: z.enum(RENDER_FORMATS), aspect_ratio: z.enum(aspectRatioIds) }),
    captions: z.object({ enabled: z.boolean(), preset_id: z.enum(captionPresetIds) }),
    framing: z.object({ mode: z.enum(FRAMING_MODES) }),
  }),
  assets: z.array(renderAssetSchema).check(z.describe('One per finished moment, in request order.')),
  error: z.nullable(terminalErrorSchema),
  created_at: timestamp,
  updated_at: timestamp,
});
export type RenderResource = z.infer<typeof renderSchema>;
export type RenderAssetResource = z.infer<typeof renderAssetSchema>;
