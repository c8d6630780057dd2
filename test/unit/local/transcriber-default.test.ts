/** `npm start`'s transcriber choice (functions/local/transcriber-default.ts). */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseLocalTranscriber } from '../../../functions/local/transcriber-default.js';
import { standInPocketsphinx } from '../../helpers/unit-fixtures.js';

const { root, bin, modelDir } = standInPocketsphinx();

describe('chooseLocalTranscriber', () => {
  it('moonshine when nothing else is named, saying its word times are aligned when pocketsphinx is installed', () => {
    const env: NodeJS.ProcessEnv = { POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: modelDir };
    expect(chooseLocalTranscriber(env)).toMatch(/^Transcriber: moonshine .*aligned by pocketsphinx/);
    expect(env.TRANSCRIBER).toBe('moonshine');
  });

  it('moonshine without pocketsphinx too, with one line saying how to get aligned word times', () => {
    for (const env of [
      { POCKETSPHINX_BIN: join(root, 'missing'), POCKETSPHINX_MODEL_DIR: modelDir },
      { POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: root },
    ] as NodeJS.ProcessEnv[]) {
      const line = chooseLocalTranscriber(env);
      expect(line).toMatch(/^Transcriber: moonshine .*estimated.*apt-get install -y pocketsphinx pocketsphinx-en-us/);
      expect(line.split('\n')).toHaveLength(1);
      expect(env.TRANSCRIBER).toBe('moonshine');
    }
  });

  it('a transcriber named in the environment (or whisper.cpp settings) wins: pocketsphinx stays selectable', () => {
    for (const name of ['none', 'pocketsphinx']) {
      const named: NodeJS.ProcessEnv = { TRANSCRIBER: name, POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: modelDir };
      expect(chooseLocalTranscriber(named)).toBe(`Transcriber: ${name}`);
      expect(named.TRANSCRIBER).toBe(name);
    }
    const whisper: NodeJS.ProcessEnv = {
      WHISPER_CPP_BIN: '/opt/whisper-cli',
      WHISPER_MODEL: '/opt/ggml.bin',
      POCKETSPHINX_BIN: bin,
      POCKETSPHINX_MODEL_DIR: modelDir,
    };
    expect(chooseLocalTranscriber(whisper)).toBe('Transcriber: whisper-cpp');
    expect(whisper.TRANSCRIBER).toBeUndefined();
  });
});
