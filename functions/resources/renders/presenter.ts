import type { RenderAssetResource, RenderPresetsResource, RenderResource } from './response.js';
import type { RenderRecord } from '../../domain/renders/model.js';
import { ASPECT_RATIOS, CAPTION_PRESETS, EFFECTS, FONT_LICENSE, FONTS, FRAMING_MODES, RENDER_FORMATS } from '../../domain/renders/presets.js';

/** A signed download link of one asset, made when the record is read. */
interface AssetLink {
  url: string;
  expiresAt: string;
}

/** GET /v1/render-presets: the presets module as clients see it. */
export const presentRenderPresets = (): RenderPresetsResource => ({
  object: 'render_presets',
  formats: [...RENDER_FORMATS],
  aspect_ratios: ASPECT_RATIOS.map(({ id, width, height }) => ({ id, width, height })),
  caption_presets: CAPTION_PRESETS.map((preset) => ({ ...preset })),
  fonts: FONTS.map(({ id, family, style }) => ({ id, family, style, license: FONT_LICENSE.name, license_url: FONT_LICENSE.url })),
  effects: EFFECTS.map((effect) => ({ ...effect })),
  framing_modes: [...FRAMING_MODES],
});

/**
 * A render as GET returns it: assets in request order, each completed one with the signed link
 * `links` holds for it (none in event payloads: a signed URL is a secret, DESIGN §9).
 */
export function presentRender(render: RenderRecord, links: Readonly<Record<string, AssetLink>> = {}): RenderResource {
  return {
    object: 'render',
    render_id: render.renderId,
    analysis_id: render.analysisId,
    status: render.status,
    moment_ids: render.momentIds,
    render: render.settings,
    assets: render.momentIds.flatMap((momentId): RenderAssetResource[] => {
      const asset = render.assets[momentId];
      if (!asset) return [];
      if (asset.status === 'failed') {
        return [
          {
            moment_id: momentId,
            status: 'failed',
            url: null,
            url_expires_at: null,
            content_type: 'video/mp4',
            width: null,
            height: null,
            duration_ms: null,
            size_bytes: null,
            captions: false,
            error: asset.error,
          },
        ];
      }
      const link = links[momentId];
      return [
        {
          moment_id: momentId,
          status: 'completed' as const,
          url: link?.url ?? null,
          url_expires_at: link?.expiresAt ?? null,
          content_type: 'video/mp4' as const,
          width: asset.width,
          height: asset.height,
          duration_ms: asset.durationMs,
          size_bytes: asset.sizeBytes,
          captions: asset.captions,
          error: null,
        },
      ];
    }),
    error: render.error,
    created_at: render.createdAt,
    updated_at: render.updatedAt,
  };
}
