import * as z from '../../shared/zod.js';
import { idField, idParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';
import { aspectRatioIds, captionPresetIds, DEFAULT_CAPTION_PRESET, FRAMING_MODES, RENDER_FORMATS, RENDER_LIMITS } from '../../domain/renders/presets.js';

/** POST /v1/renders (SPEC "Render request fields"); every enum comes from the presets module. */
export const renderCreateSchema = z.strictObject({
  analysis_id: idField,
  moment_ids: z.array(idField).check(z.minLength(1), z.maxLength(RENDER_LIMITS.maxMoments)),
  render: z._default(
    z.strictObject({
      output: z._default(
        z.strictObject({
          format: z._default(z.enum(RENDER_FORMATS), 'mp4'),
          aspect_ratio: z._default(z.enum(aspectRatioIds), '9:16'),
        }),
        { format: 'mp4', aspect_ratio: '9:16' },
      ),
      captions: z._default(
        z.strictObject({
          enabled: z._default(z.boolean(), false),
          preset_id: z._default(z.enum(captionPresetIds), DEFAULT_CAPTION_PRESET),
        }),
        { enabled: false, preset_id: DEFAULT_CAPTION_PRESET },
      ),
      framing: z._default(z.strictObject({ mode: z._default(z.enum(FRAMING_MODES), 'auto') }), { mode: 'auto' }),
    }),
    { output: { format: 'mp4', aspect_ratio: '9:16' }, captions: { enabled: false, preset_id: DEFAULT_CAPTION_PRESET }, framing: { mode: 'auto' } },
  ),
});

export const renderIdParams = z.strictObject({ render_id: idParam });

export const rendersQuerySchema = listQuerySchema;
