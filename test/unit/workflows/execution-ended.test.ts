import { describe, expect, it } from 'vitest';
import { analysisRefSchema, batchRefSchema, executionEndedSchema } from '../../../functions/workflows/task.js';

/** The EventBridge event Step Functions sends when an execution ends (only what the handlers read). */
const ended = (status: string, input: string) => ({
  'detail-type': 'Step Functions Execution Status Change',
  source: 'aws.states',
  detail: { status, input, executionArn: 'arn' },
});

describe('executionEndedSchema', () => {
  const ref = { accountId: 'acct_1', runId: 'run_1', analysisId: 'ana_1' };

  it('reads the run an ended analysis execution was processing from its own input', () => {
    expect(executionEndedSchema(analysisRefSchema).parse(ended('TIMED_OUT', JSON.stringify(ref)))).toEqual({ detail: { status: 'TIMED_OUT', input: ref } });
  });

  it('refuses statuses that are not an early end, and inputs that are not JSON or not its workflow’s', () => {
    expect(executionEndedSchema(analysisRefSchema).safeParse(ended('SUCCEEDED', JSON.stringify(ref))).success).toBe(false);
    expect(executionEndedSchema(analysisRefSchema).safeParse(ended('ABORTED', '{not json')).success).toBe(false);
    expect(executionEndedSchema(batchRefSchema).safeParse(ended('FAILED', JSON.stringify({ accountId: 'acct_1' }))).success).toBe(false);
  });
});
