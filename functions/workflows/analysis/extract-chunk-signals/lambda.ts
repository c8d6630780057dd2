import { traced } from '../../../composition/tracing.js';
import { step } from './step.js';

// Traced here only: in the container the tracer would patch every HTTP client with no X-Ray daemon to send to.
export const handler = traced(step);
