import { acquireSource } from '../../../domain/analyses/acquire.js';
import { acquisition } from '../../../composition/acquisition.js';
import { analysisRefSchema, taskHandler } from '../../task.js';

/** The AcquireSource step: a function for one-off sources of known, modest size, a container for the rest (yt-dlp is in the image). */
export const step = taskHandler(analysisRefSchema, acquisition, (ref, deps) => acquireSource(deps, ref));
