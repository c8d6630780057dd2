import type { FramingMode } from './presets.js';

/**
 * Where each output pixel comes from: pure geometry, no ffmpeg. A render is one or more panels,
 * each a crop rectangle of the source scaled to a rectangle of the output.
 */
export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Size {
  x: number;
  y: number;
}

export interface Panel {
  /** The part of the source shown. */
  crop: Rect;
  /** Where it goes in the output (scaled to this size). */
  place: Rect;
}

export interface FramePlan {
  output: Size;
  panels: Panel[];
}

/** H.264 in 4:2:0 needs even dimensions. */
export const even = (n: number): number => Math.max(2, Math.floor(n / 2) * 2);

/**
 * The largest rectangle of `aspect` inside `region`, centred on `centre` (clamped to the region).
 * The centre is where a subject detector would point; absent, the region's middle.
 */
export function cropAround(region: Rect, aspect: Size, centre?: { x: number; y: number }): Rect {
  const scale = Math.min(region.width / aspect.width, region.height / aspect.height);
  const width = even(aspect.width * scale);
  const height = even(aspect.height * scale);
  const cx = centre?.x ?? region.x + region.width / 2;
  const cy = centre?.y ?? region.y + region.height / 2;
  const clamp = (value: number, min: number, max: number) => Math.round(Math.min(Math.max(value, min), max));
  return {
    x: clamp(cx - width / 2, region.x, region.x + region.width - width),
    y: clamp(cy - height / 2, region.y, region.y + region.height - height),
    width,
    height,
  };
}

/**
 * The plan of one render. `auto` crops the whole frame to the output's aspect around its centre
 * today (no subject detection yet; a detector's crop path replaces the centre crop here).
 * `stacked` (portrait outputs): the left half of the source above the right half, each cropped
 * to fill half the output.
 */
export function planFrame(source: Size, target: Size | null, mode: FramingMode): FramePlan {
  const output = target ?? { width: even(source.width), height: even(source.height) };
  const whole = { x: 0, y: 0, width: source.width, height: source.height };
  if (mode === 'stacked') {
    const panelSize = { width: output.width, height: output.height / 2 };
    const half = Math.floor(source.width / 2);
    return {
      output,
      panels: [
        { crop: cropAround({ ...whole, width: half }, panelSize), place: { x: 0, y: 0, ...panelSize } },
        { crop: cropAround({ ...whole, x: half, width: source.width - half }, panelSize), place: { x: 0, y: panelSize.height, ...panelSize } },
      ],
    };
  }
  return { output, panels: [{ crop: cropAround(whole, output), place: { x: 0, y: 0, ...output } }] };
}
