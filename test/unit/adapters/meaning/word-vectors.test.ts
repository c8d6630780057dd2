import { describe, expect, it } from 'vitest';
import { allButTheTop, loadWordVectors } from '../../../../functions/adapters/meaning/word-vectors.js';
import { SAME_MEANING } from '../../../../functions/domain/engine/meaning.js';

describe('allButTheTop', () => {
  it('removes the mean and the dominant direction, keeping what tells rows apart', () => {
    // Three 3-d rows: a large shared offset (5, 0, 0), a dominant direction (0, 1, 0) at spread 10, a minor one (0, 0, 1).
    const rows = new Float64Array([5, 10, 1, 5, -10, 1, 5, 0, -2]);
    allButTheTop(rows, 1, 3);
    for (let d = 0; d < 3; d++) expect(rows[d]! + rows[3 + d]! + rows[6 + d]!).toBeCloseTo(0);
    // Only the minor direction is left (its mean is 0).
    expect([...rows].map((v) => Math.round(v * 1000) / 1000 + 0)).toEqual([0, 0, 1, 0, 0, 1, 0, 0, -2]);
  });
});

// The table shipped as GloVe has it the other way round: money/way 0.66 and money/get 0.73 above money/cost 0.69 and money/price 0.56.
describe('the word table: frequent words no longer sit near every topic', () => {
  it('keeps a topic close to its words and far from common unrelated ones', async () => {
    const vectors = await loadWordVectors();
    const money = (word: string) => vectors.similarity('money', word)!;
    for (const word of ['cost', 'dollars', 'paid', 'pay', 'cash']) expect(money(word), word).toBeGreaterThanOrEqual(SAME_MEANING);
    for (const word of ['way', 'brother', 'talk', 'call', 'weather', 'take']) expect(money(word), word).toBeLessThan(SAME_MEANING);
    expect(vectors.similarity('music', 'song')).toBeGreaterThanOrEqual(SAME_MEANING);
    expect(vectors.similarity('food', 'take')).toBeLessThan(SAME_MEANING);
  }, 120_000);
});
