import { POCKETSPHINX_DEFAULTS, POCKETSPHINX_INSTALL_HINT, pocketsphinxInstalled } from '../config.js';

/**
 * The transcriber `npm start` runs with when none is named (DESIGN §11; the config default stays
 * `none`, so hosts and tests that set nothing stay deterministic): `moonshine`, whose model ships
 * in the npm packages, so a newcomer gets real words without configuring anything. Its word
 * times come from pocketsphinx when that is installed, else they are spread by length, and the
 * line says how to get the better ones. A TRANSCRIBER or whisper.cpp setting in the environment
 * always wins (TRANSCRIBER=pocketsphinx keeps the old recogniser). Returns the line to print.
 */
export function chooseLocalTranscriber(env: NodeJS.ProcessEnv): string {
  if (env.TRANSCRIBER || env.WHISPER_CPP_BIN || env.WHISPER_MODEL) return `Transcriber: ${env.TRANSCRIBER ?? 'whisper-cpp'}`;
  env.TRANSCRIBER = 'moonshine';
  const aligned = pocketsphinxInstalled(env.POCKETSPHINX_BIN || POCKETSPHINX_DEFAULTS.bin, env.POCKETSPHINX_MODEL_DIR || POCKETSPHINX_DEFAULTS.modelDir);
  return aligned
    ? 'Transcriber: moonshine (Moonshine Tiny English, word times aligned by pocketsphinx; TRANSCRIBER=none turns it off)'
    : `Transcriber: moonshine (Moonshine Tiny English; word times estimated, install pocketsphinx for aligned ones: ${POCKETSPHINX_INSTALL_HINT})`;
}
