/**
 * The files behind each data directory the container image's build context carries (StagedFiles),
 * from the pinned npm packages: what `cdk synth` stages into the image's build context (the
 * Dockerfile copies `<kind>/` to the directory its ENV names) and what the local sandbox shows a
 * unit at that directory. A bundled task has no node_modules to find them in.
 */
import { shippedFontFiles } from '../adapters/renders/caption-burn-in.js';
import { shippedFaceDetectorFiles } from '../adapters/renders/face-detector.js';
import { shippedSpeechFiles } from '../adapters/transcribers/moonshine-model.js';
import type { StagedFiles } from './contracts.js';

/** A file of a shipped directory: its path inside the directory, and where it is installed here. */
interface ShippedFile {
  readonly name: string;
  readonly source: string;
}

export const shippedFiles: Readonly<Record<StagedFiles, () => ShippedFile[]>> = {
  // The fonts presets name and their licence (CAPTION_FONTS_DIR): burn-in never looks up a font of the image.
  fonts: shippedFontFiles,
  // Render framing's BlazeFace graph and TensorFlow.js's .wasm files (FACE_MODEL_DIR, TFJS_WASM_DIR).
  detector: shippedFaceDetectorFiles,
  // The moonshine transcriber's models and onnxruntime-node's linux-x64 runtime (SPEECH_MODEL_DIR).
  speech: shippedSpeechFiles,
};
