import { localAnalyzer } from '../../functions/adapters/analyzers/local-analyzer.js';
import { loadWinkMeaning } from '../../functions/adapters/meaning/wink-meaning.js';
import { once } from '../../functions/shared/memo.js';

/** The production Meaning adapter, loaded once per test file that uses it. */
export const testMeaning = once(loadWinkMeaning);

/** The local analyzer as the local host builds it. */
export const testLocalAnalyzer = localAnalyzer(testMeaning);
