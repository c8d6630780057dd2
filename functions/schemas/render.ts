import * as z from 'zod';
import { listQuerySchema } from './common.js';
import { aspectRatioIds, captionPresetIds, DEFAULT_CAPTION_PRESET, FRAMING_MODES, RENDER_FORMATS, RENDER_LIMITS } from '../domain/renders/presets.js';

/** POST /v1/renders (SPEC "Render request fields"); every enum comes from the presets module. */
export const renderCreateSchema = z.strictObject({
  analysis_id: z.string().min(1).max(200),
  moment_ids: z.array(z.string().min(1).max(200)).min(1).max(RENDER_LIMITS.maxMoments),
  render: z
    .strictObject({
      output: z
        .strictObject({
          format: z.enum(RENDER_FORMATS).default('mp4'),
          aspect_ratio: z.enum(aspectRatioIds).default('9:16'),
        })
        .default({ format: 'mp4', aspect_ratio: '9:16' }),
      captions: z
        .strictObject({
          enabled: z.boolean().default(false),
          preset_id: z.enum(captionPresetIds).default(DEFAULT_CAPTION_PRESET),
        })
        .default({ enabled: false, preset_id: DEFAULT_CAPTION_PRESET }),
      framing: z.strictObject({ mode: z.enum(FRAMING_MODES).default('auto') }).default({ mode: 'auto' }),
    })
    .default({ output: { format: 'mp4', aspect_ratio: '9:16' }, captions: { enabled: false, preset_id: DEFAULT_CAPTION_PRESET }, framing: { mode: 'auto' } }),
});
export type RenderCreate = z.infer<typeof renderCreateSchema>;

export const renderIdParams = z.strictObject({ render_id: z.string().max(200) });

export const rendersQuerySchema = listQuerySchema;
