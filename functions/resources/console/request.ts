/** The console-only routes' requests (functions/console). */
import * as z from '../../shared/zod.js';
import { idParam } from '../common/fields.js';

export const keyCreateSchema = z.strictObject({
  name: z.string().check(
    z.refine((name) => name.trim().length > 0, { message: 'A name is required.' }),
    z.refine((name) => [...name].length <= 64, { message: 'At most 64 characters.' }),
  ),
});

export const keyIdParams = z.strictObject({ key_id: idParam });
