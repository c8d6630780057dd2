/**
 * int8Logits on the shipped Moonshine decoder: the rewritten model loads, and the logits of its
 * first decoding step over generated speech rank the vocabulary as the shipped model's do (the
 * same best tokens, values within quantization error); a model without the product (Silero VAD)
 * comes back as it was.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { int8Logits } from '../../../../functions/adapters/transcribers/onnx-graph.js';
import { resolveSpeechModelFiles } from '../../../../functions/adapters/transcribers/moonshine-model.js';
import { espeakInstalled, speak } from '../../../helpers/speech-media.js';

const ort = createRequire(import.meta.url)('onnxruntime-node') as typeof Ort;
const files = resolveSpeechModelFiles();
const options = { intraOpNumThreads: 1, logSeverityLevel: 3 } as const;
const LAYERS = 6;
const HEADS = 8;
const HEAD_DIM = 36;
const cacheNames = Array.from({ length: LAYERS }, (_, layer) =>
  ['decoder', 'encoder'].flatMap((part) => ['key', 'value'].map((kind) => `past_key_values.${layer}.${part}.${kind}`)),
).flat();
const best = (logits: Float32Array, n: number) => [...logits.keys()].sort((a, b) => logits[b]! - logits[a]!).slice(0, n);

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('int8Logits', () => {
  it('leaves a model without the embedding product as it was', async () => {
    const vad = await readFile(files.vad);
    expect(int8Logits(vad)).toBe(vad);
  });

  it.skipIf(!espeakInstalled)(
    'ranks the first token as the shipped decoder does',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'onnx-graph-'));
      dirs.push(dir);
      const { path } = await speak('espeak:en-us', 'Please call me when you get home tonight', join(dir, 'speech.wav'), 300);
      const pcm = (await readFile(path)).subarray(44);
      const audio = Float32Array.from(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1), (s) => s / 32_768);
      const encoder = await ort.InferenceSession.create(files.encoder, options);
      const { last_hidden_state: encoded } = await encoder.run({ input_values: new ort.Tensor('float32', audio, [1, audio.length]) });
      const shipped = await readFile(files.decoder);
      const rewritten = int8Logits(shipped);
      expect(rewritten).not.toBe(shipped);
      const empty = new ort.Tensor('float32', new Float32Array(0), [0, HEADS, 1, HEAD_DIM]);
      const feeds: Record<string, Ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from([1n]), [1, 1]),
        encoder_hidden_states: encoded!,
        use_cache_branch: new ort.Tensor('bool', [false], [1]),
        ...Object.fromEntries(cacheNames.map((name) => [name, empty])),
      };
      const [before, after] = await Promise.all(
        [shipped, rewritten].map(async (model) => (await (await ort.InferenceSession.create(model, options)).run(feeds)).logits!.data as Float32Array),
      );
      expect(best(after!, 5)).toEqual(best(before!, 5));
      const spread = Math.max(...before!) - Math.min(...before!);
      expect(Math.max(...after!.map((value, i) => Math.abs(value - before![i]!)))).toBeLessThan(0.05 * spread);
    },
    60_000,
  );
});
