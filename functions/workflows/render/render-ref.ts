import * as z from 'zod';

/** What every render workflow step is given: the render it works on. */
export const renderRefSchema = z.object({ accountId: z.string().min(1), renderId: z.string().min(1) });
