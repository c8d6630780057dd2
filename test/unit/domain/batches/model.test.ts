import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batchStatusOf,
  isTerminalBatch,
  isTerminalItem,
  itemTransitions,
  type BatchCounters,
  type ItemStatus,
  type ItemTransition,
} from '../../../../functions/domain/batches/model.js';

const counters = (c: Partial<BatchCounters> & { total: number }): BatchCounters => ({ queued: 0, processing: 0, completed: 0, failed: 0, canceled: 0, ...c });

describe('batchStatusOf (docs/batches.md, batch states)', () => {
  it.each([
    ['queued', counters({ total: 3, queued: 3 }), false],
    ['processing', counters({ total: 3, queued: 2, processing: 1 }), false],
    ['processing', counters({ total: 3, queued: 1, completed: 2 }), false],
    ['canceling', counters({ total: 3, processing: 1, canceled: 2 }), true],
    ['canceling', counters({ total: 3, queued: 3 }), true],
    ['completed', counters({ total: 3, completed: 3 }), false],
    ['failed', counters({ total: 2, failed: 2 }), false],
    ['partial', counters({ total: 3, completed: 2, failed: 1 }), false],
    ['canceled', counters({ total: 3, completed: 1, canceled: 2 }), true],
    ['canceled', counters({ total: 2, canceled: 2 }), true],
    // Cancel asked after every item had started: spawned items are never reported as canceled.
    ['completed', counters({ total: 2, completed: 2 }), true],
    ['partial', counters({ total: 2, completed: 1, failed: 1 }), true],
  ] as const)('%s for %o (cancel asked: %s)', (expected, c, cancelRequested) => {
    expect(batchStatusOf(c, cancelRequested)).toBe(expected);
  });
});

describe('itemTransitions', () => {
  const transitionNames = Object.keys(itemTransitions) as ItemTransition[];

  it('moves only queued or processing items, into a different state, and never out of a terminal one', () => {
    for (const { from, to } of Object.values(itemTransitions)) {
      expect(isTerminalItem(from)).toBe(false);
      expect(to).not.toBe(from);
    }
  });

  it('keeps the counters adding up to total, and every batch reaches a terminal state once its items have', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...transitionNames)), { maxLength: 400 }),
        fc.boolean(),
        (total, steps, cancel) => {
          const items: ItemStatus[] = Array.from({ length: total }, () => 'queued');
          const c = counters({ total, queued: total });
          for (const [pick, name] of steps) {
            const index = pick % total;
            const { from, to } = itemTransitions[name];
            if (items[index] !== from) continue; // the store's condition refuses it
            items[index] = to;
            c[from] -= 1;
            c[to] += 1;
            expect(c.queued + c.processing + c.completed + c.failed + c.canceled).toBe(total);
          }
          const settled = items.every(isTerminalItem);
          expect(isTerminalBatch(batchStatusOf(c, cancel))).toBe(settled);
        },
      ),
    );
  });
});
