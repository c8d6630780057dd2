import { traced } from '../../composition/tracing.js';
import { extractChunkSignalsTask } from './extract-chunk-signals-step.js';

export const handler = traced(extractChunkSignalsTask);
