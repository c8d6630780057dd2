/**
 * The permission check of the run: every AWS call the integration project recorded on the local
 * host (functions/local/aws-calls/recorder.ts), against the role of the unit that made it in the
 * synthesized template (test/helpers/iam-policy.ts). Reports land in test-results/permissions/.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { principals } from '../../functions/local/aws-calls/vocabulary.js';
import { units } from '../../functions/runtime/contracts.js';
import { permissionsOutputDir } from '../helpers/aws-call-log.js';
import { checkPermissions, formatUnusedGrants, formatViolations, readRecording } from '../helpers/iam-policy.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS } from '../infra/shared-assembly.js';
import { templateForCheck } from './template.js';

function recording(): string {
  const file = inject('awsCallLog') as string | undefined;
  if (!file || !existsSync(file)) {
    throw new Error(
      'No AWS call recording from this run: the permission check reads the calls the integration project records on the local host. ' +
        'Run the integration project first, in the same vitest run: `npx vitest run --project integration --project infra --project permissions` (or `npm test`).',
    );
  }
  return file;
}

it(
  'allows every AWS call the integration suite made on the local host, in the role of the unit that made it',
  async () => {
    // Before waiting for a template: run alone, this fails at once.
    const file = recording();
    const calls = readRecording(file);
    // The recorder attributes calls to units; a recording of the host alone would check nothing.
    expect(calls.some((call) => call.unit === units.authorizer)).toBe(true);
    expect(calls.some((call) => call.unit.startsWith('route:'))).toBe(true);
    expect(calls.some((call) => call.unit.startsWith('task:'))).toBe(true);
    // ... and so would one without the roles AWS services assume: state machines, ECS execution roles, EventBridge Scheduler.
    expect(calls.some((call) => call.unit === principals.stateMachine('analysis') && call.action === 'ecs:RunTask')).toBe(true);
    expect(calls.some((call) => call.unit.startsWith(principals.ecsExecution('')) && call.action === 'ecr:BatchGetImage')).toBe(true);
    expect(calls.some((call) => call.unit === principals.scheduler && call.action === 'sqs:SendMessage')).toBe(true);

    const { template, source } = await templateForCheck();
    const report = checkPermissions(template, calls);
    const violations = formatViolations(report.violations);
    const unused = formatUnusedGrants(report);
    mkdirSync(permissionsOutputDir, { recursive: true });
    const files = {
      violations: join(permissionsOutputDir, 'violations.txt'),
      unused: join(permissionsOutputDir, 'unused-grants.txt'),
      json: join(permissionsOutputDir, 'report.json'),
    };
    writeFileSync(files.violations, `${violations}\n`);
    writeFileSync(files.unused, `${unused}\n`);
    writeFileSync(files.json, `${JSON.stringify({ recording: file, template: source, ...report }, null, 2)}\n`);
    console.log(
      [
        `Permission check: ${report.checkedCalls} distinct calls of ${new Set(calls.map((c) => c.unit)).size} units from ${file}, against ${source}.`,
        unused,
        `Reports: ${files.violations}, ${files.unused}, ${files.json}`,
      ].join('\n\n'),
    );
    if (report.violations.length) throw new Error(`${violations}\n\n(also in ${files.violations})`);
  },
  SHARED_ASSEMBLY_TIMEOUT_MS,
);
