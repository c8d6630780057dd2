import { ADMISSION_PARTITION, tableKeys } from '../keys.js';

/** How many runs the deployment has admitted (holding capacity) at once: one counter, written by update expressions, with no entity tag. */
export const admittedRunsKeys = tableKeys({ PK: ADMISSION_PARTITION, SK: 'ADMITTED' });
