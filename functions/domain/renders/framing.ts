import { autoPath, stackedPaths, type CropKey } from './crop-path.js';
import type { FramingMode } from './presets.js';
import type { SubjectTrack } from './subjects.js';

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

interface Panel {
  /** The part of the source shown (at the start, when `path` moves it). */
  crop: Rect;
  /** The crop's top-left corner over the moment's time (crop-path.ts); absent: `crop` holds still. */
  path?: CropKey[];
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

/** A panel whose crop follows `path` (its first key is where the crop starts). */
function moving(crop: Rect, place: Rect, path: CropKey[]): Panel {
  const [first] = path;
  if (!first || path.every((k) => k.x === first.x && k.y === first.y)) return { crop: first ? { ...crop, x: first.x, y: first.y } : crop, place };
  return { crop: { ...crop, x: first.x, y: first.y }, place, path };
}

const cropsSource = (crop: Rect, source: Size): boolean => crop.width < source.width || crop.height < source.height;

/**
 * The plan of one render. `auto` crops the whole frame to the output's aspect: around the
 * subjects' path when a track of them is given (the speaking face, else the salient region, else
 * the centre: crop-path.ts), else around the centre. `stacked` (portrait outputs): the two most
 * prominent faces of a two-shot one above the other when the track shows two, else the left half
 * of the source above the right half, each cropped to fill half the output.
 */
export function planFrame(source: Size, target: Size | null, mode: FramingMode, subjects?: SubjectTrack): FramePlan {
  const output = target ?? { width: even(source.width), height: even(source.height) };
  const whole = { x: 0, y: 0, width: source.width, height: source.height };
  if (mode === 'stacked') {
    const panelSize = { width: output.width, height: output.height / 2 };
    const top = { x: 0, y: 0, ...panelSize };
    const bottom = { x: 0, y: panelSize.height, ...panelSize };
    const faceCrop = cropAround(whole, panelSize);
    const paths = subjects && stackedPaths(subjects, faceCrop);
    if (paths) return { output, panels: [moving(faceCrop, top, paths[0]), moving(faceCrop, bottom, paths[1])] };
    const half = Math.floor(source.width / 2);
    return {
      output,
      panels: [
        { crop: cropAround({ ...whole, width: half }, panelSize), place: top },
        { crop: cropAround({ ...whole, x: half, width: source.width - half }, panelSize), place: bottom },
      ],
    };
  }
  const crop = cropAround(whole, output);
  const place = { x: 0, y: 0, ...output };
  if (subjects && subjects.samples.length > 0 && cropsSource(crop, source)) return { output, panels: [moving(crop, place, autoPath(subjects, crop))] };
  return { output, panels: [{ crop, place }] };
}

/** Whether any panel of a plan shows less than the whole source: only then is looking for subjects worth it. */
export const planCrops = (plan: FramePlan, source: Size): boolean => plan.panels.some((p) => cropsSource(p.crop, source));
