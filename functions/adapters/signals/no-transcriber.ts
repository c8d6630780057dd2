import type { Transcriber } from '../../domain/engine/signals.js';

/** The local default (DESIGN §7): no speech-to-text, so signals carry no transcript. */
export const noTranscriber: Transcriber = {
  transcribe: () => Promise.resolve(null),
};
