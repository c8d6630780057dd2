import { step } from './step.js';

export const handler = step;
