import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** An infra file that waits for the run's shared synthesis (test/infra/shared-assembly.ts). */
const waitsForSharedAssembly = (spec: TestSpecification): boolean => /\bsharedAssembly\(/.test(readFileSync(spec.moduleId, 'utf8'));

/**
 * vitest's default order, except that the infra files that wait for the shared synthesis run after
 * the other infra files: the synthesis bundles in a process of its own meanwhile, instead of a
 * waiting file holding the worker (one, on two cores) while it does. vitest's default puts them
 * first, as the files that took longest last time.
 */
export class InfraSequencer extends BaseSequencer {
  public override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isInfra = (spec: TestSpecification) => spec.project.name === 'infra';
    const infra = sorted.filter(isInfra);
    const waiting = new Set(infra.filter(waitsForSharedAssembly));
    const reordered = [...infra.filter((spec) => !waiting.has(spec)), ...waiting];
    // Every other file keeps its place; the infra files fill the places infra had.
    return sorted.map((spec) => (isInfra(spec) ? reordered.shift()! : spec));
  }
}
