/**
 * The figures README.md and docs/ quote about the template are the template's: the counts of
 * "What the stack holds" (docs/deploying.md), the alarm table (docs/operations.md), every sentence
 * marked `<!-- template: <figure> -->N`, the stack outputs and the cdk.json settings. A change to
 * the stack that moves a figure fails here until the text says so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmThresholds } from '../../infra/constructs/service-monitoring.js';
import { persistedContextKeys } from '../../infra/deployment-context.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { TemplateQueries, type Resource } from './template.js';

let q: TemplateQueries;

beforeAll(async () => {
  q = new TemplateQueries((await sharedAssembly()).template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const repo = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repo), 'utf8');
const pages = [
  'README.md',
  ...readdirSync(new URL('docs/', repo))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a page from a heading to the next heading of any level. */
function section(page: string, heading: string): string {
  const text = read(page);
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`${page} has no "${heading}"`);
  const end = text.indexOf('\n#', start + heading.length);
  return text.slice(start, end < 0 ? undefined : end);
}

const count = (type: string) => Object.keys(q.find(type)).length;

/** What each `<!-- template: <figure> -->` marker counts in the template. */
const figures: Record<string, () => number> = {
  functions: () => count('AWS::Lambda::Function'),
  'state-machines': () => count('AWS::StepFunctions::StateMachine'),
  'task-definitions': () => count('AWS::ECS::TaskDefinition'),
  'log-groups': () => count('AWS::Logs::LogGroup'),
  alarms: () => count('AWS::CloudWatch::Alarm'),
  roles: () => count('AWS::IAM::Role'),
  resources: () => Object.keys(q.resources).length,
};

describe('docs/deploying.md, "What the stack holds"', () => {
  /** The table's counts by row name. */
  function tableCounts(): Record<string, number> {
    return Object.fromEntries(
      [...section('docs/deploying.md', '## What the stack holds').matchAll(/^\| ([^|]+?) \| (\d+) \|/gm)].map(([, what, n]) => [what!, Number(n)]),
    );
  }

  it('counts the functions, state machines, task definitions, log groups, alarms, roles and resources the template has', () => {
    expect(tableCounts()).toEqual({
      'Lambda functions': figures.functions!(),
      'state machines': figures['state-machines']!(),
      'container task definitions': figures['task-definitions']!(),
      'log groups': figures['log-groups']!(),
      alarms: figures.alarms!(),
      'IAM roles': figures.roles!(),
      'CloudFormation resources': figures.resources!(),
    });
  });

  it('has one state machine per statemachines/*.asl.json', () => {
    expect(readdirSync(new URL('statemachines/', repo)).filter((name) => name.endsWith('.asl.json'))).toHaveLength(figures['state-machines']!());
  });

  it('names every stack output', () => {
    const outputs = Object.keys((q.template.toJSON() as { Outputs: Record<string, unknown> }).Outputs);
    const deploy = section('docs/deploying.md', '# Deploying to AWS');
    for (const output of outputs) expect(deploy, output).toContain(`\`${output}\``);
  });
});

describe('figures marked <!-- template: … --> in README.md and docs/', () => {
  const marked = pages.flatMap((page) =>
    [...read(page).matchAll(/<!-- template: ([\w-]+) -->([\d,]+)/g)].map(([, figure, n]) => ({
      page,
      figure: figure!,
      quoted: Number(n!.replaceAll(',', '')),
    })),
  );

  it('are each what the template has', () => {
    expect(marked.length).toBeGreaterThan(0);
    for (const { page, figure, quoted } of marked) {
      expect(Object.keys(figures), `${page}: unknown figure "${figure}"`).toContain(figure);
      expect(quoted, `${page}: ${figure}`).toBe(figures[figure]!());
    }
  });

  it('leave no count of alarms, state machines or log groups unmarked', () => {
    for (const page of pages) {
      const text = read(page).replace(/^\|.*\|$/gm, ''); // tables are held by the tests above
      const unmarked = [...text.matchAll(/(<!-- template: [\w-]+ -->)?\b(\d[\d,]*) (alarms|state machines|log groups)\b/g)]
        .filter(([, marker]) => !marker)
        .map(([quote]) => quote);
      expect(unmarked, page).toEqual([]);
    }
  });
});

describe('docs/configuration.md, "Deployment settings"', () => {
  it('describes every cdk.json setting synth compares with cdk.json', () => {
    const table = section('docs/configuration.md', '## Deployment settings');
    for (const key of persistedContextKeys) expect(table, key).toContain(`\`${key}\``);
  });
});

/** The alarm table of docs/operations.md ("Alarms and dashboard"): what, the alarm, and how many there are, by row. */
function alarmTableRows(): { what: string; alarm: string; count: number }[] {
  return [...section('docs/operations.md', '## Alarms and dashboard').matchAll(/^\| ([^|]+?) \| ([^|]+?) \| (\d+) \|$/gm)].map(([, what, alarm, n]) => ({
    what: what!,
    alarm: alarm!,
    count: Number(n),
  }));
}

/** `namespace metric` of every metric an alarm reads (a metric-math alarm reads several). */
function metricsRead(alarm: Resource): string[] {
  const { Namespace, MetricName, Metrics } = alarm.Properties as {
    Namespace?: string;
    MetricName?: string;
    Metrics?: { MetricStat?: { Metric: { Namespace: string; MetricName: string } } }[];
  };
  if (Namespace) return [`${Namespace} ${MetricName}`];
  return (Metrics ?? []).flatMap(({ MetricStat }) => (MetricStat ? [`${MetricStat.Metric.Namespace} ${MetricStat.Metric.MetricName}`] : []));
}

/** Each row of the table by how its "what" begins, with the metric its alarms read and the figures its text must quote. */
const t = alarmThresholds;
const alarmRows: { begins: string; reads: RegExp; figures: string[] }[] = [
  {
    begins: 'HTTP API',
    reads: /^AWS\/ApiGateway /,
    figures: [`${t.api5xxRate * 100}%`, `${t.apiLatencyP99.toSeconds()} s`, `${t.apiLatencyPeriods * 5} minutes`],
  },
  {
    begins: 'every state machine',
    reads: /^AWS\/States ExecutionsFailed$/,
    figures: [`${t.workflowFailureRate * 100}%`, `at least ${t.workflowMinimumEnded}`],
  },
  { begins: 'every dead-letter queue', reads: /^AWS\/SQS ApproximateNumberOfMessagesVisible$/, figures: ['any message'] },
  { begins: 'the table and each of its indexes', reads: /^AWS\/DynamoDB /, figures: [`${t.tableThrottlePeriods} consecutive 5-minute periods`] },
  { begins: 'container tasks', reads: /^AWS\/Events Invocations$/, figures: [`more than ${t.failedTasksPerHour} tasks in an hour`] },
  {
    begins: "the table stream's reader",
    reads: /^AWS\/Lambda IteratorAge$/,
    figures: [`${t.streamIteratorAge.toMinutes()} minutes`, `${t.backlogPeriods * 5} minutes`],
  },
  {
    begins: 'every queue a function consumes',
    reads: /^AWS\/SQS ApproximateAgeOfOldestMessage$/,
    figures: [`${t.queueMessageAge.toMinutes()} minutes`, `${t.backlogPeriods * 5} minutes`],
  },
  { begins: 'account quotas', reads: /^AWS\/Usage ResourceCount$/, figures: [`${t.quotaUsage * 100}%`] },
];

describe("docs/operations.md's alarm table", () => {
  it('has one row per kind of alarm in the template, counting them and quoting their thresholds', () => {
    const rows = alarmTableRows();
    expect(rows.map((row) => alarmRows.find((kind) => row.what.startsWith(kind.begins))?.begins)).toEqual(alarmRows.map((kind) => kind.begins));
    const alarms = Object.values(q.find('AWS::CloudWatch::Alarm'));
    for (const [i, kind] of alarmRows.entries()) {
      const row = rows[i]!;
      expect(alarms.filter((alarm) => metricsRead(alarm).some((metric) => kind.reads.test(metric))).length, row.what).toBe(row.count);
      for (const figure of kind.figures) expect(row.alarm, row.what).toContain(figure);
    }
    // Every alarm is in exactly one row.
    for (const alarm of alarms)
      expect(
        alarmRows.filter((kind) => metricsRead(alarm).some((metric) => kind.reads.test(metric))),
        JSON.stringify(alarm.Properties.AlarmDescription),
      ).toHaveLength(1);
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(alarms.length);
  });
});
