/** `npm start`'s transcriber choice (functions/local/transcriber-default.ts). */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseLocalTranscriber } from '../../../functions/local/transcriber-default.js';
import { standInPocketsphinx } from '../../helpers/unit-fixtures.js';

const { root, bin, modelDir } = standInPocketsphinx();

describe('chooseLocalTranscriber', () => {
  it('pocketsphinx when it is installed and nothing else is named', () => {
    const env: NodeJS.ProcessEnv = { POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: modelDir };
    expect(chooseLocalTranscriber(env)).toMatch(/^Transcriber: pocketsphinx/);
    expect(env.TRANSCRIBER).toBe('pocketsphinx');
  });

  it('none, with one line saying how to install it, when it is missing', () => {
    const env: NodeJS.ProcessEnv = { POCKETSPHINX_BIN: join(root, 'missing'), POCKETSPHINX_MODEL_DIR: modelDir };
    const line = chooseLocalTranscriber(env);
    expect(line).toContain('apt-get install -y pocketsphinx pocketsphinx-en-us');
    expect(line.split('\n')).toHaveLength(1);
    expect(env.TRANSCRIBER).toBe('none');
    const incomplete: NodeJS.ProcessEnv = { POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: root };
    chooseLocalTranscriber(incomplete);
    expect(incomplete.TRANSCRIBER).toBe('none');
  });

  it('a transcriber named in the environment (or whisper.cpp settings) wins', () => {
    const named: NodeJS.ProcessEnv = { TRANSCRIBER: 'none', POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: modelDir };
    expect(chooseLocalTranscriber(named)).toBe('Transcriber: none');
    expect(named.TRANSCRIBER).toBe('none');
    const whisper: NodeJS.ProcessEnv = { WHISPER_CPP_BIN: '/opt/whisper-cli', WHISPER_MODEL: '/opt/ggml.bin', POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: modelDir };
    expect(chooseLocalTranscriber(whisper)).toBe('Transcriber: whisper-cpp');
    expect(whisper.TRANSCRIBER).toBeUndefined();
  });
});
