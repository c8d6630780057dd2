import * as z from 'zod';
import { analysisRefSchema, taskHandler } from '../task.js';
import { failAndAnnounce } from './fail-and-announce.js';
import { analysisTask } from '../../composition/pipeline.js';

const input = analysisRefSchema.extend({ failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional() });

export const handler = taskHandler(input, analysisTask, ({ failure, ...ref }, services) => failAndAnnounce(services, ref, failure));
