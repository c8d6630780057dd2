import { acquireSource } from '../../domain/analyses/acquire.js';
import { acquisition } from '../../composition/source-acquisition.js';
import { analysisRefSchema, taskHandler } from '../task.js';

/** The AcquireSource step, shared by its function and the container task. */
export const acquireSourceTask = taskHandler(analysisRefSchema, acquisition, (ref, deps) => acquireSource(deps, ref));
