/**
 * What renders can be asked for (GET /v1/render-presets, DESIGN 10): the one source of truth.
 * The request schema (functions/resources/renders/request.ts) builds its enums from these lists, and the
 * renderer reads output sizes and fonts from here, so a value the API accepts is always one
 * this endpoint lists, and the reverse.
 */

export const RENDER_FORMATS = ['mp4'] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

/** `original`: the source's own size (made even for H.264); the others are exact output sizes. */
export const ASPECT_RATIOS = [
  { id: '9:16', width: 1080, height: 1920 },
  { id: '1:1', width: 1080, height: 1080 },
  { id: '4:5', width: 1080, height: 1350 },
  { id: '16:9', width: 1920, height: 1080 },
  { id: 'original', width: null, height: null },
] as const;
export type AspectRatioId = (typeof ASPECT_RATIOS)[number]['id'];
export const aspectRatioIds = ASPECT_RATIOS.map((a) => a.id) as [AspectRatioId, ...AspectRatioId[]];

/** Fixed output size of an aspect ratio; null for `original`. */
export function outputSizeOf(aspectRatio: AspectRatioId): { width: number; height: number } | null {
  const preset = ASPECT_RATIOS.find((a) => a.id === aspectRatio);
  return preset?.width ? { width: preset.width, height: preset.height } : null;
}

/** `stacked` puts two regions one above the other, which only makes sense when the output is taller than wide. */
export const isPortrait = (aspectRatio: AspectRatioId): boolean => {
  const size = outputSizeOf(aspectRatio);
  return size !== null && size.height > size.width;
};

/**
 * Fonts shipped with the service as real TTF files (the npm package `dejavu-fonts-ttf`, pinned):
 * captions never depend on a font lookup on the host. `file` is relative to the package's ttf/.
 */
export const FONTS = [
  { id: 'dejavu-sans-bold', family: 'DejaVu Sans', style: 'Bold', file: 'DejaVuSans-Bold.ttf' },
  { id: 'dejavu-sans', family: 'DejaVu Sans', style: 'Book', file: 'DejaVuSans.ttf' },
  { id: 'dejavu-serif-bold', family: 'DejaVu Serif', style: 'Bold', file: 'DejaVuSerif-Bold.ttf' },
  { id: 'dejavu-sans-mono-bold', family: 'DejaVu Sans Mono', style: 'Bold', file: 'DejaVuSansMono-Bold.ttf' },
] as const;
type FontId = (typeof FONTS)[number]['id'];
/** DejaVu's licence: the Bitstream Vera licence with public-domain changes (free to embed and redistribute). */
export const FONT_LICENSE = {
  name: 'Bitstream Vera Fonts License (DejaVu changes: public domain)',
  url: 'https://dejavu-fonts.github.io/License.html',
} as const;
export const FONT_PACKAGE = 'dejavu-fonts-ttf';

/** Caption looks; sizes are in pixels of a 1080-wide output and scale with the output width. */
export const CAPTION_PRESETS = [
  {
    id: 'bold_pop',
    name: 'Bold pop',
    font_id: 'dejavu-sans-bold',
    font_size: 72,
    text_color: '#FFFFFF',
    highlight_color: '#FFD400',
    outline_color: '#000000',
    outline_width: 5,
    position: 'lower_third',
    max_words_per_line: 3,
    uppercase: true,
    word_highlight: true,
  },
  {
    id: 'clean',
    name: 'Clean',
    font_id: 'dejavu-sans',
    font_size: 56,
    text_color: '#FFFFFF',
    highlight_color: null,
    outline_color: '#000000',
    outline_width: 3,
    position: 'bottom',
    max_words_per_line: 6,
    uppercase: false,
    word_highlight: false,
  },
  {
    id: 'headline',
    name: 'Headline',
    font_id: 'dejavu-serif-bold',
    font_size: 64,
    text_color: '#FFFFFF',
    highlight_color: '#4FC3F7',
    outline_color: '#101010',
    outline_width: 4,
    position: 'center',
    max_words_per_line: 4,
    uppercase: false,
    word_highlight: true,
  },
  {
    id: 'typewriter',
    name: 'Typewriter',
    font_id: 'dejavu-sans-mono-bold',
    font_size: 52,
    text_color: '#F5F5F5',
    highlight_color: null,
    outline_color: '#000000',
    outline_width: 3,
    position: 'bottom',
    max_words_per_line: 5,
    uppercase: false,
    word_highlight: false,
  },
] as const satisfies readonly {
  id: string;
  name: string;
  font_id: FontId;
  font_size: number;
  text_color: string;
  highlight_color: string | null;
  outline_color: string;
  outline_width: number;
  position: 'lower_third' | 'bottom' | 'center';
  max_words_per_line: number;
  uppercase: boolean;
  word_highlight: boolean;
}[];
export type CaptionPresetId = (typeof CAPTION_PRESETS)[number]['id'];
export const captionPresetIds = CAPTION_PRESETS.map((p) => p.id) as [CaptionPresetId, ...CaptionPresetId[]];
export const DEFAULT_CAPTION_PRESET: CaptionPresetId = 'bold_pop';

/**
 * `auto`: keep the subject in frame when the aspect ratio crops (today: a centre crop; a face
 * detector's crop path replaces it later). `stacked`: the left and right halves of the source
 * one above the other, for portrait outputs (a two-person podcast shot).
 */
export const FRAMING_MODES = ['auto', 'stacked'] as const;
export type FramingMode = (typeof FRAMING_MODES)[number];

/** Effects a render applies; listed so clients can discover them, none is optional yet. */
export const EFFECTS = [
  { id: 'faststart', description: 'The MP4 index (moov) precedes the media data, so playback starts before the download ends.' },
] as const;

export const RENDER_LIMITS = {
  /** SPEC Limits: 1 to 20 moment ids per render. */
  maxMoments: 20,
  /** DESIGN 5: the moments of proof analyses render up to 60 s in total per account. */
  proofAllowanceMs: 60_000,
} as const;
