import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TfModule from '@tensorflow/tfjs';
import type { Face, RgbFrame, SubjectDetector } from '../../domain/renders/subjects.js';

/**
 * Faces with MediaPipe's BlazeFace (the 256x256 "back camera" model, for faces that are not close
 * to the lens; its TensorFlow.js graph, 0.6 MB, ships inside the @vladmandic/human npm package) on
 * TensorFlow.js's WASM backend (its .wasm files ship inside @tensorflow/tfjs-backend-wasm): no
 * native library, no network, the same on the local host and in the render container.
 *
 * Chosen over @vladmandic/face-api's SSD MobileNet v1 for speed (issue 12: a render may cost at
 * most 1.1x its bare ffmpeg encode): ~25-45 ms a 320x180 frame here against ~460 ms, with the
 * framing fixture's tilted face found on every frame at 0.89-0.94. face-api's Tiny Face Detector
 * (~90 ms) missed that face on a third of the frames.
 */
interface BlazeFaceDetectorOptions {
  /** Folder of blazeface.json and blazeface.bin. */
  modelDir: string;
  /** Folder of tfjs-backend-wasm*.wasm. */
  wasmDir: string;
  /** Lowest face score kept (0-1). */
  minScore?: number;
}

/** What a deployment must carry (the container image stages these: infra/constructs/service-container-task.ts). */
const FACE_DETECTOR_FILES = {
  model: ['blazeface.json', 'blazeface.bin'],
  wasm: ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'],
} as const;

const require = createRequire(import.meta.url);

/**
 * Where the model and the WASM binaries are: configured folders win (the container image copies
 * them to /opt/detector), else the installed packages' own folders.
 */
export function resolveFaceDetectorFiles(configured: { modelDir?: string | undefined; wasmDir?: string | undefined } = {}): {
  modelDir: string;
  wasmDir: string;
} {
  const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
  return {
    // The package exports no package.json; its entry is dist/<file>, the models sit beside dist/.
    modelDir: configured.modelDir || join(dirname(require.resolve('@vladmandic/human')), '..', 'models'),
    wasmDir: configured.wasmDir || join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist'),
  };
}

/** The files a deployment carries as its one detector directory (FACE_MODEL_DIR and TFJS_WASM_DIR), from the installed packages. */
export function shippedFaceDetectorFiles(): { name: string; source: string }[] {
  const { modelDir, wasmDir } = resolveFaceDetectorFiles();
  return [
    ...FACE_DETECTOR_FILES.model.map((name) => ({ name, source: join(modelDir, name) })),
    ...FACE_DETECTOR_FILES.wasm.map((name) => ({ name, source: join(wasmDir, name) })),
  ];
}

type Tf = typeof TfModule;
interface LoadedModel {
  tf: Tf;
  model: TfModule.GraphModel;
}

/** The model's input side, and its anchors: 16x16 cells with 2 anchors each, then 8x8 with 6 (896 in all), centres in input pixels. */
const INPUT = 256;
const ANCHORS: readonly (readonly [number, number])[] = [
  [16, 2],
  [32, 6],
].flatMap(([stride = 16, perCell = 1]) => {
  const cells = INPUT / stride;
  return Array.from({ length: cells * cells * perCell }, (_, i) => {
    const cell = Math.floor(i / perCell);
    return [stride * ((cell % cells) + 0.5), stride * (Math.floor(cell / cells) + 0.5)] as const;
  });
});
/** Box regressor values per anchor: centre offset, size, then six keypoints (unused). */
const REGRESSORS = 16;
/** Overlap (intersection over union) above which two boxes are one face. */
const SAME_FACE_IOU = 0.3;
const MAX_FACES = 6;

let loading: Promise<LoadedModel> | null = null;

/** TensorFlow.js is one per process: the backend and the model load once. */
async function loadBlazeFace(modelDir: string, wasmDir: string): Promise<LoadedModel> {
  const manifest = join(modelDir, FACE_DETECTOR_FILES.model[0]);
  if (!existsSync(manifest)) throw new Error(`the face model is missing (${manifest})`);
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WASM backend did not start');
  await tf.ready();
  const graph = JSON.parse(await readFile(manifest, 'utf8')) as { modelTopology: object; weightsManifest: { weights: TfModule.io.WeightsManifestEntry[] }[] };
  const weights = await readFile(join(modelDir, FACE_DETECTOR_FILES.model[1]));
  const model = await tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: graph.modelTopology,
      weightSpecs: graph.weightsManifest.flatMap((group) => group.weights),
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    }),
  );
  return { tf, model };
}

/**
 * Scores (0-1) and boxes of every anchor for one frame, letterboxed into the model's square input
 * (padded below or to the right, so box coordinates scale back by one factor).
 */
function runModel({ tf, model }: LoadedModel, frame: RgbFrame): { scores: Float32Array; boxes: Float32Array } {
  const side = Math.max(frame.width, frame.height);
  const [scores, boxes] = tf.tidy(() => {
    const image = tf.tensor3d(frame.rgb, [frame.height, frame.width, 3], 'int32').toFloat();
    const square = tf.pad(image, [
      [0, side - frame.height],
      [0, side - frame.width],
      [0, 0],
    ]);
    const input = tf.image.resizeBilinear(square, [INPUT, INPUT]).div(127.5).sub(1).expandDims(0);
    const outputs = model.execute(input) as TfModule.Tensor[];
    const named = (name: string) => {
      const tensor = outputs[model.outputs.findIndex((o) => o.name === name)];
      if (!tensor) throw new Error(`the face model has no output ${name}`);
      return tensor;
    };
    // Identity / Identity_2: the 512 stride-16 anchors' scores / boxes; Identity_1 / Identity_3: the 384 stride-32 ones.
    return [tf.sigmoid(tf.concat([named('Identity'), named('Identity_1')], 1)), tf.concat([named('Identity_2'), named('Identity_3')], 1)];
  });
  try {
    return { scores: scores.dataSync() as Float32Array, boxes: boxes.dataSync() as Float32Array };
  } finally {
    tf.dispose([scores, boxes]);
  }
}

const iou = (a: Face, b: Face): number => {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const overlap = w > 0 && h > 0 ? w * h : 0;
  return overlap / (a.width * a.height + b.width * b.height - overlap);
};

/** Anchors above `minScore` as boxes in the frame's pixels, best first, overlapping ones suppressed. */
export function decodeFaces(scores: Float32Array, boxes: Float32Array, frame: { width: number; height: number }, minScore: number): Face[] {
  const scale = Math.max(frame.width, frame.height) / INPUT;
  const candidates: Face[] = [];
  ANCHORS.forEach(([ax, ay], i) => {
    const score = scores[i] ?? 0;
    if (score < minScore) return;
    const at = i * REGRESSORS;
    const width = (boxes[at + 2] ?? 0) * scale;
    const height = (boxes[at + 3] ?? 0) * scale;
    const cx = (ax + (boxes[at] ?? 0)) * scale;
    const cy = (ay + (boxes[at + 1] ?? 0)) * scale;
    if (width > 0 && height > 0) candidates.push({ x: cx - width / 2, y: cy - height / 2, width, height, score });
  });
  const kept: Face[] = [];
  for (const face of candidates.sort((a, b) => b.score - a.score)) {
    if (kept.length === MAX_FACES) break;
    if (kept.every((k) => iou(k, face) <= SAME_FACE_IOU)) kept.push(face);
  }
  return kept;
}

export function blazeFaceDetector(options: BlazeFaceDetectorOptions): SubjectDetector {
  const minScore = options.minScore ?? 0.6;
  return {
    name: 'BlazeFace (tfjs wasm)',
    async detect(frame: RgbFrame): Promise<Face[]> {
      loading ??= loadBlazeFace(options.modelDir, options.wasmDir);
      const loaded = await loading.catch((error: unknown) => {
        loading = null;
        throw error;
      });
      const { scores, boxes } = runModel(loaded, frame);
      return decodeFaces(scores, boxes, frame, minScore);
    },
  };
}
