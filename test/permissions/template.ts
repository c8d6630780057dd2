import { inject } from 'vitest';
import { sharedAssembly } from '../infra/shared-assembly.js';
import { synthesize } from '../infra/synth.js';
import type { TemplateJson } from '../helpers/iam-policy.js';

export interface TemplateForCheck {
  readonly template: TemplateJson;
  /** Where it came from, for the report. */
  readonly source: string;
}

let loaded: Promise<TemplateForCheck> | undefined;

/**
 * The synthesized template the permission check reads: the infra project's shared synthesis when
 * the infra project is part of this run (it provides the assembly to every project), else one of
 * its own without bundling (bundling changes no IAM), which takes about half a minute.
 */
export function templateForCheck(): Promise<TemplateForCheck> {
  loaded ??= (async () => {
    if (inject('infraAssembly')) {
      const assembly = await sharedAssembly();
      return { template: assembly.template.toJSON() as TemplateJson, source: `the infra project's shared synthesis (${assembly.assemblyDirectory})` };
    }
    const synthesized = synthesize({ bundle: false });
    try {
      return {
        template: synthesized.template.toJSON() as TemplateJson,
        source: 'a synthesis of its own, unbundled (the infra project is not part of this run)',
      };
    } finally {
      synthesized.dispose();
    }
  })();
  return loaded;
}
