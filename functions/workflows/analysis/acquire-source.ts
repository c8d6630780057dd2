import { acquireSourceTask } from './acquire-source-step.js';

export const handler = acquireSourceTask;
