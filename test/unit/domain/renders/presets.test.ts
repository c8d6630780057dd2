import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ASPECT_RATIOS, CAPTION_PRESETS, FONT_PACKAGE, FONTS, outputSizeOf } from '../../../../functions/domain/renders/presets.js';
import { renderCreateSchema } from '../../../../functions/resources/renders/request.js';
import { presentRenderPresets } from '../../../../functions/resources/renders/presenter.js';
import { renderPresetsSchema } from '../../../../functions/resources/renders/response.js';

const body = (render: Record<string, unknown>) => ({ analysis_id: 'ana_x', moment_ids: ['mom_x'], render });

describe('render presets', () => {
  test('the presented presets match their response schema and list every required value', () => {
    const presets = presentRenderPresets();
    expect(renderPresetsSchema.parse(presets)).toEqual(presets);
    expect(presets.formats).toEqual(['mp4']);
    expect(presets.aspect_ratios).toEqual(
      expect.arrayContaining([
        { id: '9:16', width: 1080, height: 1920 },
        { id: '1:1', width: 1080, height: 1080 },
        { id: '4:5', width: 1080, height: 1350 },
        { id: '16:9', width: 1920, height: 1080 },
        { id: 'original', width: null, height: null },
      ]),
    );
    expect(presets.framing_modes).toEqual(['auto', 'stacked']);
    expect(presets.caption_presets.length).toBeGreaterThanOrEqual(3);
    for (const preset of presets.caption_presets) expect(presets.fonts.map((f) => f.id)).toContain(preset.font_id);
  });

  test('every font is a real TTF file shipped by the pinned npm package', () => {
    const packageJson = createRequire(import.meta.url).resolve(`${FONT_PACKAGE}/package.json`);
    for (const font of FONTS) expect(existsSync(join(dirname(packageJson), 'ttf', font.file)), font.file).toBe(true);
  });

  test('fixed aspect ratios have even output sizes (H.264 4:2:0); original has none', () => {
    for (const { id } of ASPECT_RATIOS) {
      const size = outputSizeOf(id);
      if (id === 'original') expect(size).toBeNull();
      else expect(size && size.width % 2 === 0 && size.height % 2 === 0).toBe(true);
    }
  });

  test('the request schema accepts exactly the presets and fills defaults', () => {
    expect(renderCreateSchema.parse({ analysis_id: 'ana_x', moment_ids: ['mom_x'] }).render).toEqual({
      output: { format: 'mp4', aspect_ratio: '9:16' },
      captions: { enabled: false, preset_id: 'bold_pop' },
      framing: { mode: 'auto' },
    });
    for (const { id } of ASPECT_RATIOS) expect(renderCreateSchema.safeParse(body({ output: { aspect_ratio: id } })).success).toBe(true);
    for (const { id } of CAPTION_PRESETS) expect(renderCreateSchema.safeParse(body({ captions: { enabled: true, preset_id: id } })).success).toBe(true);
    const cases: [Record<string, unknown>, string][] = [
      [{ output: { aspect_ratio: '3:2' } }, 'render.output.aspect_ratio'],
      [{ output: { format: 'mov' } }, 'render.output.format'],
      [{ captions: { enabled: true, preset_id: 'comic' } }, 'render.captions.preset_id'],
      [{ framing: { mode: 'zoom' } }, 'render.framing.mode'],
    ];
    for (const [render, field] of cases) {
      const result = renderCreateSchema.safeParse(body(render));
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path.join('.')).toBe(field);
    }
  });

  test('1 to 20 moment ids', () => {
    expect(renderCreateSchema.safeParse({ analysis_id: 'ana_x', moment_ids: [] }).success).toBe(false);
    expect(renderCreateSchema.safeParse({ analysis_id: 'ana_x', moment_ids: Array.from({ length: 21 }, (_, i) => `mom_${i}`) }).success).toBe(false);
    expect(renderCreateSchema.safeParse({ analysis_id: 'ana_x', moment_ids: Array.from({ length: 20 }, (_, i) => `mom_${i}`) }).success).toBe(true);
  });
});
