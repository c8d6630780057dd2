/**
 * What the signals step sees in a video (DESIGN §12): sampled frames run through the shipped
 * detectors. A closed vocabulary: COCO's 80 object classes (people among them), faces (with an
 * expression where the model measures one) and on-screen text. The local analyzer answers only
 * sights it can name here; the AWS analyzer also gets the frames themselves (stills).
 * All times are milliseconds from the start of the source; boxes are fractions of the frame.
 */

/** COCO-80 in the detector's class order (class id = index), as the model's labels name them. */
export const COCO_LABELS = [
  'person',
  'bicycle',
  'car',
  'motorcycle',
  'airplane',
  'bus',
  'train',
  'truck',
  'boat',
  'traffic light',
  'fire hydrant',
  'stop sign',
  'parking meter',
  'bench',
  'bird',
  'cat',
  'dog',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'bear',
  'zebra',
  'giraffe',
  'backpack',
  'umbrella',
  'handbag',
  'tie',
  'suitcase',
  'frisbee',
  'skis',
  'snowboard',
  'sports ball',
  'kite',
  'baseball bat',
  'baseball glove',
  'skateboard',
  'surfboard',
  'tennis racket',
  'bottle',
  'wine glass',
  'cup',
  'fork',
  'knife',
  'spoon',
  'bowl',
  'banana',
  'apple',
  'sandwich',
  'orange',
  'broccoli',
  'carrot',
  'hot dog',
  'pizza',
  'donut',
  'cake',
  'chair',
  'couch',
  'potted plant',
  'bed',
  'dining table',
  'toilet',
  'tv',
  'laptop',
  'mouse',
  'remote',
  'keyboard',
  'cell phone',
  'microwave',
  'oven',
  'toaster',
  'sink',
  'refrigerator',
  'book',
  'clock',
  'vase',
  'scissors',
  'teddy bear',
  'hair drier',
  'toothbrush',
] as const;
export type CocoLabel = (typeof COCO_LABELS)[number];

/** A rectangle as fractions (0..1) of the frame's width and height, from its top-left corner. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface SeenObject {
  label: CocoLabel;
  /** The detector's score, 0..1. */
  score: number;
  box: Box;
}

export interface SeenFace {
  score: number;
  box: Box;
  /** The most likely expression and its score; null where no expression model ran or none was clear. */
  expression: { label: string; score: number } | null;
}

export interface SeenText {
  /** The line read, as recognised. */
  text: string;
  score: number;
  box: Box;
}

/** One sampled frame and what each detector found in it. */
export interface VisualSample {
  atMs: number;
  /** Why it was sampled: the steady rate, or the first frame after a scene change. */
  reason: 'rate' | 'scene';
  objects: SeenObject[];
  faces: SeenFace[];
  /** Text read; null where reading did not run on this frame (it runs sparsely), [] where it ran and read nothing. */
  text: SeenText[] | null;
}

export interface VisualSignals {
  /**
   * What saw: each detector's model and version, and the extractor's own version (sampling,
   * thresholds). Part of the media index's key: a change of any of them computes again.
   */
  models: { objects: string; faces: string; text: string | null };
  /** Lowest score each detector kept: a detection under it was not recorded. */
  minScores: { objects: number; faces: number; text: number };
  /** Every sampled frame of the window, in time order, whether or not anything was found in it. */
  samples: VisualSample[];
}

/**
 * A sampled frame as a small JPEG, for analyzers that look at pictures themselves (the model
 * behind `bedrock`). Bounded in count and size per chunk by the extractor.
 */
export interface Still {
  atMs: number;
  width: number;
  height: number;
  jpeg: Uint8Array;
}
