import * as z from '../../shared/zod.js';

/** What every render workflow step is given: the render it works on. */
export const renderRefSchema = z.object({ accountId: z.string().check(z.minLength(1)), renderId: z.string().check(z.minLength(1)) });
