import { traced } from '../../shared/tracer.js';
import { extractChunkSignalsTask } from './extract-chunk-signals-step.js';

export const handler = traced(extractChunkSignalsTask);
