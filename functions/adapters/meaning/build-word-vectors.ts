import { buildTable, tableDir } from './word-vectors.js';

// `npm run build:word-vectors`: builds the table now instead of on the first analysis (~6 s, ~0.5 GB once).
await buildTable();
console.log(`word vectors written to ${tableDir()}`);
