import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as FaceApiModule from '@vladmandic/face-api';
import type { Face, RgbFrame, SubjectDetector } from '../../domain/renders/subjects.js';

/**
 * Faces with @vladmandic/face-api's models (weights shipped inside the npm package) on
 * TensorFlow.js's WASM backend (its .wasm files ship inside @tensorflow/tfjs-backend-wasm): no
 * native library, no network, the same on the local host and in the render container.
 *
 * `ssd` (SSD MobileNet v1, 5.4 MB, the default): found the fixture's tilted face on every frame at
 * 0.99, ~0.4-0.6 s a 320x180 frame on one busy core here. `tiny` (Tiny Face Detector, 190 KB):
 * ~60-120 ms a frame, but it scored the same face 0.2-0.7 and missed it on a third of the frames.
 */
export type FaceModel = 'ssd' | 'tiny';

export interface FaceApiDetectorOptions {
  /** Folder of the models' weights manifests and .bin files. */
  modelDir: string;
  /** Folder of tfjs-backend-wasm*.wasm. */
  wasmDir: string;
  model?: FaceModel;
  minScore?: number;
}

const MANIFESTS: Record<FaceModel, string> = { ssd: 'ssd_mobilenetv1_model-weights_manifest.json', tiny: 'tiny_face_detector_model-weights_manifest.json' };

/** What a deployment must carry (the container image stages these: infra/constructs/service-container-task.ts). */
export const FACE_DETECTOR_FILES = {
  model: [MANIFESTS.ssd, 'ssd_mobilenetv1_model.bin'],
  wasm: ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'],
} as const;

type FaceApi = typeof FaceApiModule;
/** The part of TensorFlow.js used here (face-api re-exports the whole library as `tf`; its types list less). */
interface Tf {
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  tensor3d(values: Uint8Array, shape: [number, number, number], dtype: 'int32'): { dispose(): void };
}
const tfOf = (faceapi: FaceApi): Tf => faceapi.tf as unknown as Tf;

const require = createRequire(import.meta.url);

/**
 * Where the model and the WASM binaries are: configured folders win (the container image copies
 * them to /opt/detector), else the installed packages' own folders.
 */
export function resolveFaceApiFiles(configured: { modelDir?: string | undefined; wasmDir?: string | undefined } = {}): { modelDir: string; wasmDir: string } {
  const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
  return {
    modelDir: configured.modelDir || join(packageDir('@vladmandic/face-api'), 'model'),
    wasmDir: configured.wasmDir || join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist'),
  };
}

const loading = new Map<FaceModel, Promise<FaceApi>>();

/** TensorFlow.js is one per process: the backend and each model load once. */
async function loadFaceApi(model: FaceModel, modelDir: string, wasmDir: string): Promise<FaceApi> {
  const manifest = join(modelDir, MANIFESTS[model]);
  if (!existsSync(manifest)) throw new Error(`the face model is missing (${manifest})`);
  const imported = (await import('@vladmandic/face-api/dist/face-api.node-wasm.js')) as unknown as { default?: FaceApi } & FaceApi;
  const faceapi = imported.default ?? imported;
  const wasm = (await import('@tensorflow/tfjs-backend-wasm')) as unknown as { setWasmPaths: (prefix: string) => void };
  wasm.setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
  if (!(await tfOf(faceapi).setBackend('wasm'))) throw new Error('the TensorFlow.js WASM backend did not start');
  await tfOf(faceapi).ready();
  await (model === 'ssd' ? faceapi.nets.ssdMobilenetv1 : faceapi.nets.tinyFaceDetector).loadFromDisk(modelDir);
  return faceapi;
}

export function faceApiDetector(options: FaceApiDetectorOptions): SubjectDetector {
  const model = options.model ?? 'ssd';
  const minScore = options.minScore ?? 0.5;
  return {
    name: `face-api ${model === 'ssd' ? 'ssd_mobilenetv1' : 'tiny_face_detector'} (tfjs wasm)`,
    async detect(frame: RgbFrame): Promise<Face[]> {
      let loaded = loading.get(model);
      if (!loaded) loading.set(model, (loaded = loadFaceApi(model, options.modelDir, options.wasmDir)));
      const faceapi = await loaded.catch((error: unknown) => {
        loading.delete(model);
        throw error;
      });
      const input = tfOf(faceapi).tensor3d(frame.rgb, [frame.height, frame.width, 3], 'int32');
      try {
        const found = await faceapi.detectAllFaces(
          input,
          model === 'ssd' ? new faceapi.SsdMobilenetv1Options({ minConfidence: minScore, maxResults: 6 }) : new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: minScore }),
        );
        return found.map((d) => ({ x: d.box.x, y: d.box.y, width: d.box.width, height: d.box.height, score: d.score }));
      } finally {
        input.dispose();
      }
    },
  };
}
