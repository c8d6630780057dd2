import { existsSync } from 'node:fs';
import { POCKETSPHINX_DEFAULTS, POCKETSPHINX_INSTALL_HINT, pocketsphinxModelFiles } from '../config.js';

/**
 * The transcriber `npm start` runs with when none is named (DESIGN §7 keeps `none` as the config
 * default, so hosts and tests that set nothing stay deterministic): pocketsphinx when its CLI and
 * US English model are installed, so a newcomer gets captions on renders without configuring
 * anything; else `none`, with one line saying how to install it. A TRANSCRIBER or whisper.cpp
 * setting in the environment always wins. Returns the line to print.
 */
export function chooseLocalTranscriber(env: NodeJS.ProcessEnv): string {
  if (env.TRANSCRIBER || env.WHISPER_CPP_BIN || env.WHISPER_MODEL) return `Transcriber: ${env.TRANSCRIBER ?? 'whisper-cpp'}`;
  const binary = env.POCKETSPHINX_BIN || POCKETSPHINX_DEFAULTS.bin;
  const model = pocketsphinxModelFiles(env.POCKETSPHINX_MODEL_DIR || POCKETSPHINX_DEFAULTS.modelDir);
  if (existsSync(binary) && Object.values(model).every((path) => existsSync(path))) {
    env.TRANSCRIBER = 'pocketsphinx';
    return 'Transcriber: pocketsphinx (word-timed captions on renders; TRANSCRIBER=none turns it off)';
  }
  env.TRANSCRIBER = 'none';
  return `Transcriber: none, so renders cannot have captions. Install pocketsphinx (${POCKETSPHINX_INSTALL_HINT}) and run npm start again.`;
}
