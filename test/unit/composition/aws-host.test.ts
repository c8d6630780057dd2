import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient, SendTaskSuccessCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { awsHost } from '../../../functions/composition/aws-host.js';
import { parseConfig } from '../../../functions/config.js';
import { serviceEnv } from '../../helpers/unit-fixtures.js';

const secrets = mockClient(SecretsManagerClient);
const sfn = mockClient(SFNClient);
beforeEach(() => {
  secrets.reset();
  sfn.reset();
});
afterAll(() => {
  secrets.restore();
  sfn.restore();
});

const ANALYSIS_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:analysis';
const ref = { accountId: 'acct_1', runId: 'run_1', analysisId: 'ana_1' };

describe('the AWS host', () => {
  it('reads the cursor key from Secrets Manager once, retrying a failed read', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({ SecretString: 'k'.repeat(64) });
    const host = awsHost(parseConfig({ ...serviceEnv, CURSOR_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor' }));
    await expect(host.cursorSecret()).rejects.toThrow('throttled');
    expect(await host.cursorSecret()).toBe('k'.repeat(64));
    expect(await host.cursorSecret()).toBe('k'.repeat(64));
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('names the missing setting when a function not configured for it reads the cursor key', async () => {
    await expect(awsHost(parseConfig({ ...serviceEnv })).cursorSecret()).rejects.toThrow('CURSOR_SECRET_ARN is not set');
  });

  it('starts the analysis workflow named after the analysis and wakes task tokens through Step Functions', async () => {
    sfn.on(StartExecutionCommand).resolves({});
    sfn.on(SendTaskSuccessCommand).resolves({});
    const workflows = await awsHost(parseConfig({ ...serviceEnv, ANALYSIS_STATE_MACHINE_ARN: ANALYSIS_ARN })).workflows();
    await workflows.startAnalysis(ref);
    await workflows.succeed('token-1', { granted: true });
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input).toMatchObject({ stateMachineArn: ANALYSIS_ARN, name: 'ana_1' });
    expect(sfn.commandCalls(SendTaskSuccessCommand)[0]?.args[0].input).toEqual({ taskToken: 'token-1', output: '{"granted":true}' });
  });

  it('refuses to start a workflow whose state machine this function was not given', async () => {
    const workflows = await awsHost(parseConfig({ ...serviceEnv, ANALYSIS_STATE_MACHINE_ARN: ANALYSIS_ARN })).workflows();
    await expect(workflows.startBatch({ accountId: 'acct_1', batchId: 'bat_1' })).rejects.toThrow('BATCH_STATE_MACHINE_ARN is not set');
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});
