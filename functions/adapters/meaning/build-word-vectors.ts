import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildTable, tableDir, WORD_VECTOR_FILES } from './word-vectors.js';

// `npm run build:word-vectors`: builds the table now instead of on the first analysis (~6 s,
// ~0.5 GB once), unless this machine has it (a pure function of the pinned package); `cdk synth`
// runs it before copying the table into the analyzer functions' bundles.
if (!existsSync(join(tableDir(), WORD_VECTOR_FILES.words))) await buildTable();
console.log(`word vectors in ${tableDir()}`);
