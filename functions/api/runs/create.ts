import { requireAccount } from '../../domain/accounts.js';
import { submitRun } from '../../domain/runs/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentRun } from '../../http/run-presenters.js';
import { runCreateSchema } from '../../schemas/run.js';
import { scannerIdParams } from '../../schemas/scanner.js';
import { scannerDeps } from '../scanners/deps.js';

export const handler = httpHandler(
  'api/runs/create',
  { params: scannerIdParams, body: runCreateSchema },
  async ({ accountId, params, body }, services) => {
    const account = await requireAccount(services.accounts, accountId);
    const run = await submitRun(
      { ...scannerDeps(services), runs: services.runs, findSource: services.findRunnableSource, workflows: services.workflows },
      account,
      params.scanner_id,
      body,
    );
    return { status: 202, body: presentRun(run) };
  },
);
