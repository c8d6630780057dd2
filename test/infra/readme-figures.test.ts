import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmThresholds } from '../../infra/constructs/service-monitoring.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { TemplateQueries, type Resource } from './template.js';

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
  it('counts the functions, state machines, task definitions, log groups, alarms, roles and resources the template has', () => {
    const count = (type: string) => Object.keys(q.find(type)).length;
    expect(readmeCounts()).toEqual({
      'Lambda functions': count('AWS::Lambda::Function'),
      'state machines': count('AWS::StepFunctions::StateMachine'),
      'container task definitions': count('AWS::ECS::TaskDefinition'),
      'log groups': count('AWS::Logs::LogGroup'),
      alarms: count('AWS::CloudWatch::Alarm'),
      'IAM roles': count('AWS::IAM::Role'),
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

/** README's alarm table ("Alarms and dashboard"): what, the alarm, and how many there are, by row. */
function readmeAlarmRows(): { what: string; alarm: string; count: number }[] {
  const start = readme.indexOf('### Alarms and dashboard');
  const section = readme.slice(start, readme.indexOf('\n#', start + 1));
  return [...section.matchAll(/^\| ([^|]+?) \| ([^|]+?) \| (\d+) \|$/gm)].map(([, what, alarm, count]) => ({ what: what!, alarm: alarm!, count: Number(count) }));
}

/** `namespace metric` of every metric an alarm reads (a metric-math alarm reads several). */
function metricsRead(alarm: Resource): string[] {
  const { Namespace, MetricName, Metrics } = alarm.Properties as { Namespace?: string; MetricName?: string; Metrics?: { MetricStat?: { Metric: { Namespace: string; MetricName: string } } }[] };
  if (Namespace) return [`${Namespace} ${MetricName}`];
  return (Metrics ?? []).flatMap(({ MetricStat }) => (MetricStat ? [`${MetricStat.Metric.Namespace} ${MetricStat.Metric.MetricName}`] : []));
}

/** Each row of the table by how its "what" begins, with the metric its alarms read and the figures its text must quote. */
const t = alarmThresholds;
const alarmRows: { begins: string; reads: RegExp; figures: string[] }[] = [
  { begins: 'HTTP API', reads: /^AWS\/ApiGateway /, figures: [`${t.api5xxRate * 100}%`, `${t.apiLatencyP99.toSeconds()} s`, `${t.apiLatencyPeriods * 5} minutes`] },
  { begins: 'every state machine', reads: /^AWS\/States ExecutionsFailed$/, figures: [`${t.workflowFailureRate * 100}%`, `at least ${t.workflowMinimumEnded}`] },
  { begins: 'every dead-letter queue', reads: /^AWS\/SQS ApproximateNumberOfMessagesVisible$/, figures: ['any message'] },
  { begins: 'the table and each of its indexes', reads: /^AWS\/DynamoDB /, figures: [`${t.tableThrottlePeriods} consecutive 5-minute periods`] },
  { begins: 'container tasks', reads: /^AWS\/Events Invocations$/, figures: [`more than ${t.failedTasksPerHour} tasks in an hour`] },
  { begins: "the table stream's reader", reads: /^AWS\/Lambda IteratorAge$/, figures: [`${t.streamIteratorAge.toMinutes()} minutes`, `${t.backlogPeriods * 5} minutes`] },
  { begins: 'every queue a function consumes', reads: /^AWS\/SQS ApproximateAgeOfOldestMessage$/, figures: [`${t.queueMessageAge.toMinutes()} minutes`, `${t.backlogPeriods * 5} minutes`] },
  { begins: 'account quotas', reads: /^AWS\/Usage ResourceCount$/, figures: [`${t.quotaUsage * 100}%`] },
];

describe("README's alarm table", () => {
  it('has one row per kind of alarm in the template, counting them and quoting their thresholds', () => {
    const rows = readmeAlarmRows();
    expect(rows.map((row) => alarmRows.find((kind) => row.what.startsWith(kind.begins))?.begins)).toEqual(alarmRows.map((kind) => kind.begins));
    const alarms = Object.values(q.find('AWS::CloudWatch::Alarm'));
    for (const [i, kind] of alarmRows.entries()) {
      const row = rows[i]!;
      expect(alarms.filter((alarm) => metricsRead(alarm).some((metric) => kind.reads.test(metric))).length, row.what).toBe(row.count);
      for (const figure of kind.figures) expect(row.alarm, row.what).toContain(figure);
    }
    // Every alarm is in exactly one row.
    for (const alarm of alarms) expect(alarmRows.filter((kind) => metricsRead(alarm).some((metric) => kind.reads.test(metric))), JSON.stringify(alarm.Properties.AlarmDescription)).toHaveLength(1);
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(alarms.length);
  });
});
