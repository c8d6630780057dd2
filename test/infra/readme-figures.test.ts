import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { TemplateQueries } from './template.js';

let q: TemplateQueries;

beforeAll(async () => {
  q = new TemplateQueries((await sharedAssembly()).template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** README's "What the stack holds" table: its counts by row name. */
function readmeCounts(): Record<string, number> {
  const start = readme.indexOf('### What the stack holds');
  const section = readme.slice(start, readme.indexOf('\n#', start + 1));
  return Object.fromEntries([...section.matchAll(/^\| ([^|]+?) \| (\d+) \|/gm)].map(([, what, count]) => [what!, Number(count)]));
}

describe('README describes the template it deploys', () => {
  it('counts the functions, state machines, task definitions, log groups, alarms and resources the template has', () => {
    const count = (type: string) => Object.keys(q.find(type)).length;
    expect(readmeCounts()).toEqual({
      'Lambda functions': count('AWS::Lambda::Function'),
      'state machines': count('AWS::StepFunctions::StateMachine'),
      'container task definitions': count('AWS::ECS::TaskDefinition'),
      'log groups': count('AWS::Logs::LogGroup'),
      alarms: count('AWS::CloudWatch::Alarm'),
      'CloudFormation resources': Object.keys(q.resources).length,
    });
  });

  it('names every stack output', () => {
    const outputs = Object.keys((q.template.toJSON() as { Outputs: Record<string, unknown> }).Outputs);
    const deploySection = readme.slice(readme.indexOf('## Deploying to AWS'), readme.indexOf('### What `cdk synth` and `cdk deploy` need'));
    for (const output of outputs) expect(deploySection, output).toContain(`\`${output}\``);
  });

  it('quotes the same alarm count and resource total wherever it gives them', () => {
    const counts = readmeCounts();
    expect(readme).toContain(`${counts.alarms} alarms`);
    expect(readme).toContain(`holds ${counts['CloudFormation resources']} of CloudFormation's 500 resources`);
  });
});
